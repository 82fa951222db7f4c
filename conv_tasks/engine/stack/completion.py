"""The end of a traversal: the stack goes *_COMPLETE or *_FAILED (seed 000).

On success the stack's template becomes the rollback target and templates
no stack refers to any more are deleted; a delete soft-deletes the stack.
On failure the stack's reason and its FAILED event say what the traversal did to its
resources and why it failed, in one line (summary.py), and the caller is told whether a
rollback to the last template that completed is due (it starts it: this module never
starts an operation).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from conv_tasks.db import EventRecord, StackRow, Transaction
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.payload import NodeOutput
from conv_tasks.engine.stack.summary import summarise
from conv_tasks.errors import ConvTasksError
from conv_tasks.statuses import Action, OperationOutcome, Status

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Completion:
    """How a traversal ended. `rollback` holds the failure when a rollback is due."""

    action: str
    rollback: str | None = None


def traversal_failures(inputs: Mapping[str, Any]) -> list[str]:
    """The failures the graph's last nodes handed to the stack's point, each once."""
    found: dict[str, None] = {}
    for value in inputs.values():
        for failure in NodeOutput.from_json(value).failed:
            found.setdefault(failure)
    return list(found)


def failure_summary(
    tx: Transaction, stack: StackRow, traversal: str, failures: Sequence[str] = ()
) -> str:
    """'3 created, 1 failed (db: …), 2 not started' for the stack's traversal `traversal`
    (its current one): one read of what it did to every resource."""
    marks = tx.resources.traversal_marks(stack.id, traversal, stack.raw_template_id)
    return summarise(stack.current_graph, marks, failures)


def complete_traversal(
    env: EngineEnv, stack_id: str, traversal: str, inputs: Mapping[str, Any]
) -> Completion | None:
    """Finish the stack's operation. None if the traversal is no longer the stack's."""
    failures = traversal_failures(inputs)
    with env.db.transaction() as tx:
        try:
            stack = tx.stacks.get(stack_id)
        except ConvTasksError:
            return None
        if stack.current_traversal != traversal or not stack.in_progress:
            return None
        action = stack.action
        if failures:
            reason = failure_summary(tx, stack, traversal, failures)
            rollback = action in (Action.CREATE, Action.UPDATE) and not stack.disable_rollback
            tx.events.add(
                [EventRecord(stack_id, action, Status.FAILED, reason, traversal=traversal)]
            )
            # With a rollback due, the stack goes straight to ROLLBACK_IN_PROGRESS (the
            # failure is in its events): a client waiting for the stack never sees a
            # FAILED state that is about to change.
            if not rollback and not tx.stacks.update_if_current(
                stack_id, traversal, status=Status.FAILED, status_reason=reason
            ):
                return None
            # Failed even when a rollback follows: the rollback is an operation of its own.
            outcome = OperationOutcome.FAILED
            done = Completion(action, reason if rollback else None)
        else:
            old_ids = [i for i in (stack.raw_template_id, stack.prev_raw_template_id) if i]
            fields: dict[str, Any] = {
                "status": Status.COMPLETE,
                "status_reason": f"Stack {action} completed successfully",
            }
            if action == Action.DELETE:
                fields.update(
                    deleted_at=datetime.now(UTC),
                    raw_template_id=None,
                    prev_raw_template_id=None,
                    current_graph=None,
                )
            elif action not in (Action.CHECK, Action.SUSPEND, Action.RESUME):
                # A check, suspend or resume changed no template: the rollback target stays
                # what it was.
                fields.update(prev_raw_template_id=stack.raw_template_id)
            if not tx.stacks.update_if_current(stack_id, traversal, **fields):
                return None
            reason = fields["status_reason"]
            outcome = OperationOutcome.COMPLETE
            tx.events.add(
                [
                    EventRecord(
                        stack_id,
                        action,
                        Status.COMPLETE,
                        fields["status_reason"],
                        traversal=traversal,
                    )
                ]
            )
            tx.templates.delete_orphaned(only=old_ids)
            if action == Action.DELETE:
                # Server credentials, and deployments or configs kept by a Retain policy.
                tx.deployments.forget_stack(stack_id)
            done = Completion(action)
        tx.operations.finish(stack_id=stack_id, traversal=traversal, result=outcome, reason=reason)
    env.syncpoints.drop(traversal)
    return done
