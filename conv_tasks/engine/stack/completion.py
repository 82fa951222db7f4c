"""The end of a traversal: the stack goes *_COMPLETE or *_FAILED (seed 000).

On success the stack's template becomes the rollback target and templates
no stack refers to any more are deleted; a delete soft-deletes the stack.

Success is PostgreSQL's to say, not Redis's: the stack's SyncPoint completing means every
node handed its output on, but a PostgreSQL that failed over to a standby behind it may
have lost what some of them wrote. So the transaction that writes the stack's COMPLETE
first asks the resource table, in one statement, whether every node of the traversal
reached its goal; when some did not, nothing is written and the caller resumes the
operation from the database, with an event naming what was lost (docs/how-it-works.md,
"When PostgreSQL and Redis disagree"). An operation resumed that way `LOST_WRITE_RESUMES`
times and still short fails instead, rather than go round for ever.
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
from conv_tasks.errors import ConvTasksError, InvalidInput
from conv_tasks.graph import NodeKey, TraversalGraph
from conv_tasks.statuses import Action, OperationOutcome, Status

log = logging.getLogger(__name__)

# How every event of an operation resumed because PostgreSQL lost writes begins.
LOST_WRITES = "PostgreSQL lost writes"
# How often one operation is resumed for lost writes before it fails instead.
LOST_WRITE_RESUMES = 3
# The nodes a lost-writes reason names; the count says how many there were in all.
NAMED = 10


@dataclass(frozen=True)
class Completion:
    """How a traversal ended. `rollback` holds the failure when a rollback is due; `resume`
    says why the operation must go on from the database instead (nothing was written)."""

    action: str
    rollback: str | None = None
    resume: str | None = None


def lost_writes_reason(nodes: Sequence[NodeKey], where: str) -> str:
    """The reason of the event of an operation resumed because PostgreSQL lost writes;
    `where` says how it was found ("as the stack's operation ended")."""
    shown = ", ".join(str(node) for node in nodes[:NAMED])
    more = f" and {len(nodes) - NAMED} more" if len(nodes) > NAMED else ""
    return (
        f"{LOST_WRITES} (found {where}): {len(nodes)} node(s) that the traversal's SyncPoints "
        f"say finished had not reached their goal in the database ({shown}{more}); resumed "
        "from the database"
    )


def _graph_nodes(stack: StackRow) -> list[NodeKey]:
    if stack.current_graph is None:
        return []
    try:
        return list(TraversalGraph.from_json(stack.current_graph).nodes)
    except InvalidInput:
        return []


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
        if failures:
            done = _fail(tx, stack, traversal, failures)
        else:
            short = tx.resources.short_of_goal(
                stack_id,
                _graph_nodes(stack),
                template_id=stack.raw_template_id,
                started_at=stack.operation_started_at,
            )
            if not short:
                done = _succeed(tx, stack, traversal)
            else:
                resumed = tx.operations.resumes_for(
                    stack_id=stack_id, traversal=traversal, reason_prefix=LOST_WRITES
                )
                if resumed < LOST_WRITE_RESUMES:
                    where = "as the stack's operation ended"
                    return Completion(stack.action, resume=lost_writes_reason(short, where))
                done = _give_up(tx, stack, traversal, short, resumed)
    if done is not None:
        env.syncpoints.drop(traversal)
    return done


def _fail(
    tx: Transaction, stack: StackRow, traversal: str, failures: Sequence[str]
) -> Completion | None:
    action = stack.action
    reason = failure_summary(tx, stack, traversal, failures)
    rollback = action in (Action.CREATE, Action.UPDATE) and not stack.disable_rollback
    tx.events.add([EventRecord(stack.id, action, Status.FAILED, reason, traversal=traversal)])
    # With a rollback due, the stack goes straight to ROLLBACK_IN_PROGRESS (the failure is in
    # its events): a client waiting for the stack never sees a FAILED state that is about to
    # change.
    if not rollback and not tx.stacks.update_if_current(
        stack.id, traversal, status=Status.FAILED, status_reason=reason
    ):
        return None
    # Failed even when a rollback follows: the rollback is an operation of its own.
    tx.operations.finish(
        stack_id=stack.id, traversal=traversal, result=OperationOutcome.FAILED, reason=reason
    )
    return Completion(action, reason if rollback else None)


def _succeed(tx: Transaction, stack: StackRow, traversal: str) -> Completion | None:
    action = stack.action
    old_ids = [i for i in (stack.raw_template_id, stack.prev_raw_template_id) if i]
    reason = f"Stack {action} completed successfully"
    fields: dict[str, Any] = {"status": Status.COMPLETE, "status_reason": reason}
    if action == Action.DELETE:
        fields.update(
            deleted_at=datetime.now(UTC),
            raw_template_id=None,
            prev_raw_template_id=None,
            current_graph=None,
        )
    elif action not in (Action.CHECK, Action.SUSPEND, Action.RESUME):
        # A check, suspend or resume changed no template: the rollback target stays what it
        # was.
        fields.update(prev_raw_template_id=stack.raw_template_id)
    if not tx.stacks.update_if_current(stack.id, traversal, **fields):
        return None
    tx.events.add([EventRecord(stack.id, action, Status.COMPLETE, reason, traversal=traversal)])
    tx.templates.delete_orphaned(only=old_ids)
    if action == Action.DELETE:
        # Server credentials, and deployments or configs kept by a Retain policy.
        tx.deployments.forget_stack(stack.id)
    tx.operations.finish(
        stack_id=stack.id, traversal=traversal, result=OperationOutcome.COMPLETE, reason=reason
    )
    return Completion(action)


def _give_up(
    tx: Transaction, stack: StackRow, traversal: str, short: Sequence[NodeKey], resumed: int
) -> Completion:
    """End an operation that PostgreSQL still says is short of its goal after `resumed`
    resumes: FAILED (no rollback: what the database holds is in doubt), saying which nodes."""
    shown = ", ".join(str(node) for node in short[:NAMED])
    reason = (
        f"Stack {stack.action} failed: resumed {resumed} time(s) because PostgreSQL lost "
        f"writes, and {len(short)} node(s) still had not reached their goal ({shown})"
    )
    tx.events.add([EventRecord(stack.id, stack.action, Status.FAILED, reason, traversal=traversal)])
    tx.stacks.update_if_current(stack.id, traversal, status=Status.FAILED, status_reason=reason)
    tx.operations.finish(
        stack_id=stack.id, traversal=traversal, result=OperationOutcome.FAILED, reason=reason
    )
    return Completion(stack.action)
