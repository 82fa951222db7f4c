"""The stack operations a tenant asks for: what the public tasks call.

Every stack is looked up among the tenant's own, by name or id; a nested stack is
refused (it changes only through its live parent's resource). There is no way to act
without a tenant here: the engine's own operations by stack id are in control.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from conv_tasks.db import StackRow, Transaction
from conv_tasks.engine.definition import StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack import changes
from conv_tasks.engine.stack.apply import Applied, ApplyResult, change_of, stands_on
from conv_tasks.engine.stack.health import begin_user_check, mark
from conv_tasks.engine.stack.launch import Started, launch
from conv_tasks.engine.stack.nesting import refuse_direct_change
from conv_tasks.engine.stack.planning import ChangeRequest, plan_change
from conv_tasks.engine.stack.results import Marked, OperationResult
from conv_tasks.engine.stack.suspension import begin_user_walk
from conv_tasks.errors import Duplicate, NotFound
from conv_tasks.requests import ApplyRequest, NewStackRequest
from conv_tasks.statuses import Action, Status, state_name
from conv_tasks.tags import checked_tags

Start = Callable[[Transaction, StackRow], tuple[Started, StackDefinition]]


class TenantStacks:
    """One tenant's stack operations."""

    def __init__(self, env: EngineEnv, tenant: str) -> None:
        self.env = env
        self.tenant = tenant

    def _for_change(self, tx: Transaction, ref: str) -> StackRow:
        """The tenant's stack `ref` names, unless it is nested in a live parent."""
        stack = tx.stacks.find(self.tenant, ref)
        if stack.parent_stack_id is not None:
            parent = tx.stacks.get_any(stack.parent_stack_id)
            if parent is not None and not parent.deleted:
                refuse_direct_change(stack.name, parent.name, stack.parent_resource)
        return stack

    def _start(self, ref: str, start: Start) -> OperationResult:
        with self.env.db.transaction() as tx:
            stack = self._for_change(tx, ref)
            started, definition = start(tx, stack)
        launch(self.env, started, stack.current_traversal)
        return changes.started_result(stack, started, definition)

    def create(self, request: NewStackRequest) -> OperationResult:
        return changes.create(self.env, self.tenant, request)

    def update(
        self,
        ref: str,
        request: ChangeRequest,
        *,
        disable_rollback: bool | None = None,
        timeout_mins: int | None = None,
        tags: tuple[str, ...] | None = None,
    ) -> OperationResult:
        return self._start(
            ref,
            lambda tx, stack: changes.update(
                self.env,
                tx,
                stack,
                request,
                disable_rollback=disable_rollback,
                timeout_mins=timeout_mins,
                tags=tags,
            ),
        )

    def apply(self, request: ApplyRequest) -> Applied:
        """Create the stack `request` names, update it to the request, or leave it as it
        is if it is COMPLETE on exactly that (apply.py)."""
        name = changes.check_stack_name(request.name)
        request = replace(request, tags=checked_tags(list(request.tags or ())))
        with self.env.db.transaction() as tx:
            exists = self._named(tx, name) is not None
        if not exists:
            try:
                return Applied(ApplyResult.CREATED, self.create(request.to_create()))
            except Duplicate:
                pass  # another request made it meanwhile: apply to that stack
        with self.env.db.transaction() as tx:
            stack = self._named(tx, name)
            if stack is None:
                raise NotFound(f"Stack {name!r} was deleted while it was being applied to.")
            stack = self._for_change(tx, stack.id)
            planned = plan_change(self.env, tx, stack, change_of(request))
            if stands_on(stack, planned, request):
                unchanged = OperationResult(
                    stack_id=stack.id,
                    name=stack.name,
                    action=stack.action,
                    state=stack.state,
                    event_id=None,
                    warnings=tuple(planned.definition.warnings),
                )
                return Applied(ApplyResult.UNCHANGED, unchanged)
            started, definition = changes.update(
                self.env,
                tx,
                stack,
                change_of(request),
                disable_rollback=request.disable_rollback,
                timeout_mins=request.timeout_mins,
                tags=tuple(request.tags or ()),
                planned=planned,
            )
        launch(self.env, started, stack.current_traversal)
        return Applied(ApplyResult.UPDATED, changes.started_result(stack, started, definition))

    def _named(self, tx: Transaction, name: str) -> StackRow | None:
        """The tenant's live stack called `name` (not one whose id is `name`), or None."""
        try:
            stack = tx.stacks.find(self.tenant, name)
        except NotFound:
            return None
        return stack if stack.name == name else None

    def delete(self, ref: str, *, retain: Sequence[str] = ()) -> OperationResult:
        """Delete the stack, leaving the resources `retain` names alone (forget.py)."""
        return self._start(
            ref, lambda tx, stack: changes.delete(self.env, tx, stack, retain=retain)
        )

    def rollback(self, ref: str, *, skip: Sequence[str] = ()) -> OperationResult:
        """Roll the stack back, leaving alone the resources `skip` names that the rollback
        would delete (forget.py)."""
        return self._start(
            ref,
            lambda tx, stack: changes.rollback(
                self.env, tx, stack, expected=stack.current_traversal, skip=skip
            ),
        )

    def cancel(self, ref: str, *, rollback: bool = True) -> OperationResult:
        """Stop an update in progress, rolling back to the last complete template or not."""
        if not rollback:
            with self.env.db.transaction() as tx:
                stack = self._for_change(tx, ref)
                result = changes.cancel_without_rollback(self.env, tx, stack)
            if stack.current_traversal:
                self.env.syncpoints.drop(stack.current_traversal)
            return result

        def cancelled(tx: Transaction, stack: StackRow) -> tuple[Started, StackDefinition]:
            changes.check_cancellable(stack)
            action = stack.action
            return changes.rollback(
                self.env,
                tx,
                stack,
                expected=stack.current_traversal,
                reason=f"Stack {action} cancelled; rolling back",
                require_failed=False,
                interrupt=f"the stack {action.lower()} was cancelled",
            )

        return self._start(ref, cancelled)

    def check(self, ref: str) -> OperationResult:
        """Start a check of every resource of the stack. Conflict while an operation runs."""
        with self.env.db.transaction() as tx:
            stack = tx.stacks.find(self.tenant, ref)
            started = begin_user_check(self.env, tx, stack)
        return self._walk_started(stack, started)

    def suspend(self, ref: str) -> OperationResult:
        """Suspend every resource of the stack, dependants first (suspension.py says when
        a stack may be suspended; Conflict otherwise)."""
        return self._walk(ref, Action.SUSPEND)

    def resume(self, ref: str) -> OperationResult:
        """Resume every resource of a suspended stack, dependencies first."""
        return self._walk(ref, Action.RESUME)

    def _walk(self, ref: str, action: Action) -> OperationResult:
        with self.env.db.transaction() as tx:
            stack = self._for_change(tx, ref)
            started = begin_user_walk(self.env, tx, stack, action)
        return self._walk_started(stack, started)

    def _walk_started(self, stack: StackRow, started: Started) -> OperationResult:
        """Launch a check, suspend or resume: it stores no template and makes no warnings."""
        launch(self.env, started, stack.current_traversal)
        return OperationResult(
            stack_id=started.stack_id,
            name=stack.name,
            action=started.action,
            state=state_name(started.action, Status.IN_PROGRESS),
            event_id=started.event_id,
            traversal=started.traversal,
        )

    def mark_unhealthy(
        self, ref: str, resource: str, reason: str | None, *, reset: bool = False
    ) -> Marked:
        with self.env.db.transaction() as tx:
            return mark(tx, tx.stacks.find(self.tenant, ref), resource, reason, reset=reset)
