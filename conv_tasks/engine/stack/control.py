"""The stack operations the engine starts itself, on a stack named by its id.

No tenant is checked here, and none is needed: the callers are the engine's own (the end
of a traversal and the rollback it may start, the watchdog, a nested resource acting on
its child stack). What users ask for goes through tenant.py instead.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from conv_tasks.db import EventRecord, StackRow
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack import changes
from conv_tasks.engine.stack.completion import (
    complete_traversal,
    failure_summary,
    lost_writes_reason,
)
from conv_tasks.engine.stack.health import begin_check, begin_child_check
from conv_tasks.engine.stack.launch import Started, begin, launch
from conv_tasks.engine.stack.nesting import child_stack_name, nesting_of_child
from conv_tasks.engine.stack.planning import ChangeRequest
from conv_tasks.engine.stack.results import OperationResult
from conv_tasks.engine.stack.suspension import begin_child_walk, begin_walk
from conv_tasks.errors import Conflict, ConvTasksError, LostRace, NotFound
from conv_tasks.graph import NodeKey
from conv_tasks.requests import NewStackRequest
from conv_tasks.statuses import Action, OperationOutcome, Status

log = logging.getLogger(__name__)


class StackControl:
    """The engine's own stack operations, by stack id."""

    def __init__(self, env: EngineEnv) -> None:
        self.env = env

    # ------------------------------------------------------------ traversals

    def end_traversal(self, stack_id: str, traversal: str, inputs: Mapping[str, Any]) -> None:
        """The stack's own SyncPoint completed: finish the operation, and roll back a failed
        create or update unless the stack disables rollback."""
        done = complete_traversal(self.env, stack_id, traversal, inputs)
        if done is not None and done.resume is not None:
            self.resume_lost(stack_id, traversal, done.resume)
        elif done is not None and done.rollback is not None:
            self._roll_back_failed(stack_id, traversal, done.action, done.rollback)

    def resume_lost(self, stack_id: str, traversal: str, reason: str) -> None:
        """PostgreSQL lost writes the SyncPoints of `traversal` count on: resume the stack's
        operation from what the database holds, as the watchdog does after Redis lost the
        SyncPoints (the new traversal's first event gives `reason`)."""
        if self.restart(stack_id, traversal, reason) is not None:
            log.warning("stack %s: %s", stack_id, reason)

    def _roll_back_failed(self, stack_id: str, traversal: str, action: str, reason: str) -> None:
        try:
            self.roll_back(
                stack_id, expected=traversal, reason=f"{action} failed, rolling back: {reason}"
            )
        except ConvTasksError as exc:
            log.warning("rollback of stack %s did not start: %s", stack_id, exc)
            with self.env.db.transaction() as tx:
                tx.stacks.update_if_current(
                    stack_id,
                    traversal,
                    status=Status.FAILED,
                    status_reason=f"{reason}; rollback did not start: {exc}",
                )

    def roll_back(self, stack_id: str, *, expected: str | None, reason: str) -> OperationResult:
        """Roll the stack back to its last complete template, replacing traversal
        `expected` (None: whichever the stack has now)."""
        with self.env.db.transaction() as tx:
            stack = tx.stacks.get(stack_id)
            old = stack.current_traversal if expected is None else expected
            started, definition = changes.rollback(
                self.env, tx, stack, expected=old, reason=reason, require_failed=False
            )
        launch(self.env, started, old)
        return changes.started_result(stack, started, definition)

    def restart(self, stack_id: str, expected: str, reason: str) -> Started | None:
        """Start the stack's current operation again from the database's truth (the
        watchdog): converged resources are no-ops on the second pass; nothing is done
        twice. None if the stack moved on meanwhile."""
        try:
            with self.env.db.transaction() as tx:
                stack = tx.stacks.get(stack_id)
                if stack.current_traversal != expected or not stack.in_progress:
                    return None
                if stack.action == Action.CHECK:
                    started = begin_check(self.env, tx, stack, expected, reason, resumes=True)
                elif stack.action in (Action.SUSPEND, Action.RESUME):
                    action = Action(stack.action)
                    started = begin_walk(
                        self.env, tx, stack, action, expected, reason, resumes=True
                    )
                else:
                    raw = tx.templates.get(stack.raw_template_id or 0)
                    started = begin(
                        self.env,
                        tx,
                        stack,
                        action=stack.action,
                        template_id=raw.id,
                        definition=self.env.definitions.of_row(raw),
                        expected=expected,
                        reason=reason,
                        resumes=True,
                    )
        except LostRace:
            return None
        launch(self.env, started, expected)
        return started

    def time_out(
        self, stack_id: str, traversal: str, action: str, reason: str, *, roll_back: bool
    ) -> bool:
        """End an operation that ran past its timeout: FAILED, and its nodes stopped (a fresh
        traversal id); then rolled back if `roll_back`. False if the stack moved on."""
        with self.env.db.transaction() as tx:
            try:
                stack = tx.stacks.get(stack_id)
            except NotFound:
                return False
            if stack.current_traversal != traversal:
                return False
            reason = f"{reason}: {failure_summary(tx, stack, traversal)}"
            if not tx.stacks.swap_traversal(
                stack_id, traversal, str(uuid.uuid4()), status=Status.FAILED, status_reason=reason
            ):
                return False
            tx.events.add([EventRecord(stack_id, action, Status.FAILED, reason)])
            tx.operations.finish(
                stack_id=stack_id,
                traversal=traversal,
                result=OperationOutcome.FAILED,
                reason=reason,
            )
        self.env.syncpoints.drop(traversal)
        if roll_back:
            self.roll_back(stack_id, expected=None, reason=f"Rolling back: {reason}")
        return True

    # ------------------------------------------------------------ child stacks

    def create_child(
        self,
        parent: StackRow,
        resource_name: str,
        token: str,
        request: NewStackRequest,
        facade: Mapping[str, Any] | None,
    ) -> str:
        """Create the child stack of `parent`'s resource, keyed by its action's token (a
        repeated step finds the child the first made). The request's name is replaced by
        the child's."""
        nesting = nesting_of_child(parent.id, parent.name, parent.nested_depth, resource_name)
        named = replace(request, name=child_stack_name(parent.name, resource_name, token))
        result = changes.create(self.env, parent.tenant, named, nesting=nesting, facade=facade)
        return result.stack_id

    def update_child(
        self,
        child_id: str,
        request: ChangeRequest,
        *,
        timeout_mins: int | None,
        facade: Mapping[str, Any] | None,
    ) -> None:
        with self.env.db.transaction() as tx:
            child = tx.stacks.get(child_id)
            started, _ = changes.update(
                self.env,
                tx,
                child,
                request,
                timeout_mins=timeout_mins,
                facade=facade,
                via_parent=True,
            )
        launch(self.env, started, child.current_traversal)

    def delete_child(self, child_id: str) -> None:
        with self.env.db.transaction() as tx:
            try:
                child = tx.stacks.get(child_id)
            except NotFound:
                return  # deleted already: a repeated step
            if child.action == Action.DELETE and child.in_progress:
                return
            started, _ = changes.delete(self.env, tx, child)
        launch(self.env, started, child.current_traversal)

    def cancel_child(self, child_id: str) -> None:
        cancelled: str | None = None
        with self.env.db.transaction() as tx:
            try:
                child = tx.stacks.get(child_id)
            except NotFound:
                return
            # Conflict: it ended meanwhile, and nothing is left to cancel.
            with contextlib.suppress(Conflict):
                changes.cancel_without_rollback(self.env, tx, child)
                cancelled = child.current_traversal
        if cancelled:
            self.env.syncpoints.drop(cancelled)

    def check_child(self, child_id: str, key: str) -> None:
        """Start the check of a nested stack its parent's check `key` asks for, once."""
        with self.env.db.transaction() as tx:
            begun = begin_child_check(self.env, tx, child_id, key)
        if begun is not None:
            started, old = begun
            launch(self.env, started, old)

    def walk_child(self, child_id: str, action: Action, key: str) -> None:
        """Start the suspend (resume) of a nested stack its parent's step `key` asks for,
        once."""
        with self.env.db.transaction() as tx:
            begun = begin_child_walk(self.env, tx, child_id, action, key)
        if begun is not None:
            started, old = begun
            launch(self.env, started, old)


def end_traversal(env: EngineEnv, stack_id: str, traversal: str, inputs: Mapping[str, Any]) -> None:
    """The environment's `end_traversal`: StackControl.end_traversal."""
    StackControl(env).end_traversal(stack_id, traversal, inputs)


def resume_traversal(
    env: EngineEnv, stack_id: str, traversal: str, lost: Sequence[NodeKey], where: str
) -> None:
    """The environment's `resume_traversal`: a node found that PostgreSQL lost what `lost`
    wrote (`where`: how it knows); StackControl.resume_lost."""
    StackControl(env).resume_lost(stack_id, traversal, lost_writes_reason(lost, where))
