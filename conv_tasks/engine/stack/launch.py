"""Starting a traversal (seed 001): plan, add rows, create SyncPoints, swap the traversal id.

All in the caller's transaction: losing the compare-and-swap to a concurrent
operation raises LostRace, the transaction rolls back (no row of ours
remains) and our SyncPoints are dropped. Only after commit are the first
nodes enqueued.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.db import EventRecord, StackRow, Transaction
from conv_tasks.engine.definition import StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.payload import NodeTask
from conv_tasks.errors import Duplicate, LostRace
from conv_tasks.graph import ExistingVersion, NodeKey, TraversalGraph, plan_traversal
from conv_tasks.statuses import Action, Status
from conv_tasks.syncpoint import STACK_POINT, PointSpec


@dataclass(frozen=True)
class Started:
    stack_id: str
    traversal: str
    template_id: int
    action: str
    roots: tuple[NodeKey, ...]
    empty: bool
    event_id: int  # the operation's first event: follow its progress from here
    stack_name: str = ""  # a label its node tasks carry for monitors


def points_of(graph: TraversalGraph) -> dict[str, PointSpec]:
    """One SyncPoint per node, plus the stack's own, which every leaf satisfies."""
    points: dict[str, PointSpec] = {}
    for node in graph.nodes:
        successors = tuple(str(s) for s in graph.successors(node)) or (STACK_POINT,)
        points[str(node)] = PointSpec(tuple(str(p) for p in graph.predecessors(node)), successors)
    if points:
        points[STACK_POINT] = PointSpec(tuple(str(leaf) for leaf in graph.leaves()), ())
    return points


def _new_rows(
    stack_id: str,
    names: tuple[str, ...],
    versions: list[ExistingVersion],
    definition: StackDefinition,
    template_id: int,
) -> list[dict[str, Any]]:
    next_version: dict[str, int] = {}
    for row in versions:
        next_version[row.name] = max(next_version.get(row.name, 0), row.version + 1)
    rows = []
    for name in names:
        snippet = definition.template.resources[name]
        rows.append(
            {
                "stack_id": stack_id,
                "name": name,
                "version": next_version.get(name, 0),
                "type": snippet.type,
                "action": Action.INIT,
                "status": Status.COMPLETE,
                "deletion_policy": snippet.deletion_policy,
                "template_id": template_id,
                "properties_data": {},
                "attr_data": {},
                "plugin_data": {},
                "requires": [],
                "status_reason": "",
                "atomic_key": 0,
            }
        )
    return rows


def begin(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    *,
    action: str,
    template_id: int,
    definition: StackDefinition,
    expected: str | None,
    reason: str,
    options: Mapping[str, Any] | None = None,
    resumes: bool = False,
) -> Started:
    """Plan and swap in a new traversal inside the caller's transaction. `options`: the
    stack's settings an update changes (disable_rollback, timeout_mins, tags), written by
    the statement that swaps the traversal, so a losing operation writes none of them.
    `resumes`: the watchdog restarts the operation of traversal `expected` (see swap_in)."""
    existing = tx.resources.existing(stack.id)
    plan = plan_traversal(existing, definition.dependencies)
    try:
        tx.resources.add(_new_rows(stack.id, plan.new_names, existing, definition, template_id))
    except Duplicate:
        # A concurrent operation is adding the same resource versions: it wins.
        raise _lost(stack, action) from None
    return swap_in(
        env,
        tx,
        stack,
        plan.graph,
        action=action,
        template_id=template_id,
        expected=expected,
        reason=reason,
        options=options,
        resumes=resumes,
    )


def _lost(stack: StackRow, action: str) -> LostRace:
    return LostRace(
        f"Stack {stack.name!r} was changed by another operation at the same time; "
        f"this {action.lower()} was not started. Try again."
    )


def swap_in(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    graph: TraversalGraph,
    *,
    action: str,
    template_id: int,
    expected: str | None,
    reason: str,
    traversal: str | None = None,
    options: Mapping[str, Any] | None = None,
    resumes: bool = False,
) -> Started:
    """Swap in a new traversal of `graph` (its SyncPoints made first) in the caller's
    transaction; LostRace if `expected` is no longer the stack's traversal. `traversal`:
    its id when the caller derives one from an idempotency key (a nested stack's check).

    The operation's row of the stack's history is written in the same transaction: a new
    one (which supersedes the operation it takes the stack over from), or, when `resumes`,
    the operation of `expected` going on under the new traversal, one watchdog restart
    more."""
    traversal = traversal or str(uuid.uuid4())
    points = points_of(graph)
    if points:
        env.syncpoints.create(traversal, points)
    try:
        won = tx.stacks.swap_traversal(
            stack.id,
            expected,
            traversal,
            action=action,
            status=Status.IN_PROGRESS,
            status_reason=reason,
            raw_template_id=template_id,
            current_graph=graph.to_json(),
            starts_operation=True,
            **(options or {}),
        )
    except LostRace:
        won = False
    if not won:
        env.syncpoints.drop(traversal)
        raise _lost(stack, action)
    [event_id] = tx.events.add(
        [EventRecord(stack.id, action, Status.IN_PROGRESS, reason, traversal=traversal)]
    )
    _record_operation(tx, stack, action, traversal, expected, event_id, reason, resumes)
    return Started(
        stack.id,
        traversal,
        template_id,
        action,
        graph.roots(),
        not graph.nodes,
        event_id,
        stack.name,
    )


def _record_operation(
    tx: Transaction,
    stack: StackRow,
    action: str,
    traversal: str,
    expected: str | None,
    event_id: int,
    reason: str,
    resumes: bool,
) -> None:
    if (
        resumes
        and expected is not None
        and tx.operations.resume(stack_id=stack.id, old=expected, new=traversal)
    ):
        return
    tx.operations.start(
        stack_id=stack.id,
        tenant=stack.tenant,
        traversal=traversal,
        action=action,
        first_event_id=event_id,
        superseded_reason=f"Superseded by the next operation ({reason})",
        # A restarted operation that has no row (it began before there were any).
        watchdog_restarts=1 if resumes else 0,
    )


def launch(env: EngineEnv, started: Started, old_traversal: str | None) -> None:
    """After commit: forget the superseded traversal's SyncPoints and enqueue the first nodes
    (a traversal with none ends at once)."""
    if old_traversal:
        env.syncpoints.drop(old_traversal)
    if started.empty:
        env.end_traversal(env, started.stack_id, started.traversal, {})
        return
    env.syncpoints.heartbeat(started.traversal)
    env.dispatcher.nodes(
        [
            NodeTask(
                started.stack_id,
                started.traversal,
                started.template_id,
                root,
                stack=started.stack_name,
            ).to_payload()
            for root in started.roots
        ]
    )
