"""Stack operations: create, update, delete, rollback, cancel, and restarting a stalled traversal.

Each operation (seed 001) loads every resource version of the stack, plans
the traversal, adds rows for new resources, creates the SyncPoints and swaps
in a fresh traversal id with a compare-and-swap, all in one transaction.
Losing the swap to a concurrent operation rolls the transaction back (no row
of ours remains) and drops our SyncPoints. Only then are the first nodes
enqueued.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db import events as event_repo
from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine.definition import EMPTY_TEMPLATE, StackDefinition, cached_definition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.status import (
    COMPLETE,
    CREATE,
    DELETE,
    FAILED,
    IN_PROGRESS,
    INIT,
    ROLLBACK,
    UPDATE,
)
from conv_tasks.errors import Conflict, LostRace, PayloadError, Problem
from conv_tasks.graph import ExistingVersion, NodeKey, TraversalGraph, plan_traversal

log = logging.getLogger(__name__)

STACK_SYNC = "stack"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,254}$")


@dataclass(frozen=True)
class Started:
    stack_id: str
    traversal: str
    action: str
    roots: tuple[NodeKey, ...]
    empty: bool
    event_id: int  # the operation's first event: follow its progress from here


def node_payload(
    stack_id: str, traversal: str, node: NodeKey | str, data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "stack_id": stack_id,
        "traversal": traversal,
        "node": str(node),
        "data": dict(data or {}),
    }


def _existing(session: Session, stack_id: str) -> list[ExistingVersion]:
    return [
        ExistingVersion(
            id=row.id,
            name=row.name,
            version=row.version,
            requires=frozenset(row.requires or ()),
            is_head=row.replaced_by is None,
        )
        for row in resource_repo.versions(session, stack_id)
    ]


def _begin(
    env: EngineEnv,
    session: Session,
    stack: Stack,
    *,
    action: str,
    template_id: int,
    definition: StackDefinition,
    expected: str | None,
    reason: str,
) -> Started:
    """Plan and swap in a new traversal inside the caller's transaction."""
    existing = _existing(session, stack.id)
    plan = plan_traversal(existing, definition.dependencies)
    next_version: dict[str, int] = {}
    for row in existing:
        next_version[row.name] = max(next_version.get(row.name, 0), row.version + 1)
    new_rows = []
    for name in plan.new_names:
        snippet = definition.template.resources[name]
        new_rows.append(
            {
                "stack_id": stack.id,
                "name": name,
                "version": next_version.get(name, 0),
                "type": snippet.type,
                "action": INIT,
                "status": COMPLETE,
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
    try:
        resource_repo.add_versions(session, new_rows)
    except IntegrityError:
        # A concurrent operation is adding the same resource versions: it wins.
        raise LostRace(
            f"Stack {stack.name!r} was changed by another operation at the same time; "
            f"this {action.lower()} was not started. Try again."
        ) from None
    graph = plan.graph
    traversal = str(uuid.uuid4())
    waits: dict[str, list[str]] = {}
    for node in graph.nodes:
        preds = graph.predecessors(node)
        if preds:
            waits[str(node)] = [str(p) for p in preds]
    if graph.leaves():
        waits[STACK_SYNC] = [str(leaf) for leaf in graph.leaves()]
    if waits:
        env.syncpoints.create(traversal, waits)
    try:
        won = stack_repo.swap_traversal(
            session,
            stack.id,
            expected,
            traversal,
            action=action,
            status=IN_PROGRESS,
            status_reason=reason,
            raw_template_id=template_id,
            current_graph=graph.to_json(),
            operation_started_at=datetime.now(UTC),
        )
        if won:
            session.flush()
    except IntegrityError:
        won = False
    if not won:
        env.syncpoints.drop(traversal)
        raise LostRace(
            f"Stack {stack.name!r} was changed by another operation at the same time; "
            f"this {action.lower()} was not started. Try again."
        )
    [event_id] = event_repo.add_events(
        session,
        [event_repo.EventRecord(stack.id, action, IN_PROGRESS, reason, traversal=traversal)],
    )
    return Started(stack.id, traversal, action, graph.roots(), not graph.nodes, event_id)


def _launch(env: EngineEnv, started: Started, old_traversal: str | None) -> None:
    """After commit: forget the superseded traversal's SyncPoints and enqueue the first nodes."""
    if old_traversal:
        env.syncpoints.drop(old_traversal)
    if started.empty:
        from conv_tasks.engine.completion import complete_traversal

        complete_traversal(env, started.stack_id, started.traversal, {})
        return
    env.syncpoints.heartbeat(started.traversal)
    env.dispatcher.nodes(
        [node_payload(started.stack_id, started.traversal, root) for root in started.roots]
    )


def _result(stack: Stack, started: Started, definition: StackDefinition) -> dict[str, Any]:
    return {
        "stack_id": stack.id,
        "name": stack.name,
        "action": started.action,
        "status": f"{started.action}_{IN_PROGRESS}",
        "traversal": started.traversal,
        "event_id": started.event_id,
        "warnings": list(definition.warnings),
    }


def check_stack_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise PayloadError(
            [
                Problem(
                    "name",
                    "a stack name must start with a letter and hold only letters, digits, "
                    f"'_', '-' and '.' (at most 255 characters), got {name!r}",
                )
            ]
        )
    return name


def create_stack(
    env: EngineEnv,
    *,
    tenant: str,
    name: str,
    template: Mapping[str, Any] | str,
    parameters: Mapping[str, Any],
    disable_rollback: bool = False,
    timeout_mins: int | None = None,
) -> dict[str, Any]:
    check_stack_name(name)
    definition = StackDefinition.build(template, parameters, env.registry)
    stack_id = str(uuid.uuid4())
    try:
        with session_scope() as session:
            raw = template_repo.add_template(
                session, dict(definition.template.raw), dict(parameters)
            )
            stack = Stack(
                id=stack_id,
                name=name,
                tenant=tenant,
                action=CREATE,
                status=IN_PROGRESS,
                status_reason="",
                disable_rollback=disable_rollback,
                timeout_mins=timeout_mins,
            )
            session.add(stack)
            session.flush()
            started = _begin(
                env,
                session,
                stack,
                action=CREATE,
                template_id=raw.id,
                definition=definition,
                expected=None,
                reason="Stack CREATE started",
            )
    except IntegrityError:
        raise Conflict(f"A stack named {name!r} already exists.") from None
    _launch(env, started, None)
    return _result(stack, started, definition)


def _load_for_change(session: Session, tenant: str, stack_ref: str) -> Stack:
    return stack_repo.find_stack(session, tenant, stack_ref)


def update_stack(
    env: EngineEnv,
    *,
    tenant: str,
    stack_ref: str,
    template: Mapping[str, Any] | str | None,
    parameters: Mapping[str, Any],
    existing_parameters: bool = False,
    disable_rollback: bool | None = None,
    timeout_mins: int | None = None,
) -> dict[str, Any]:
    with session_scope() as session:
        stack = _load_for_change(session, tenant, stack_ref)
        if stack.action == DELETE:
            raise Conflict(f"Stack {stack.name!r} is being deleted; it cannot be updated.")
        current = template_repo.get_template(session, stack.raw_template_id or 0)
        source: Mapping[str, Any] | str = template if template is not None else current.template
        # Without a new template, the stack's parameters are kept and the given ones patched in.
        keep = existing_parameters or template is None
        values = {**current.parameters, **parameters} if keep else dict(parameters)
        definition = StackDefinition.build(source, values, env.registry)
        raw = template_repo.add_template(session, dict(definition.template.raw), values)
        if disable_rollback is not None:
            stack.disable_rollback = disable_rollback
        if timeout_mins is not None:
            stack.timeout_mins = timeout_mins
        session.flush()
        old = stack.current_traversal
        started = _begin(
            env,
            session,
            stack,
            action=UPDATE,
            template_id=raw.id,
            definition=definition,
            expected=old,
            reason="Stack UPDATE started",
        )
    _launch(env, started, old)
    return _result(stack, started, definition)


def _empty_template_id(session: Session) -> tuple[int, StackDefinition]:
    raw = template_repo.add_template(session, dict(EMPTY_TEMPLATE), {})
    return raw.id, cached_definition(raw.id, raw.template, raw.parameters)


def delete_stack(env: EngineEnv, *, tenant: str, stack_ref: str) -> dict[str, Any]:
    with session_scope() as session:
        stack = _load_for_change(session, tenant, stack_ref)
        template_id, definition = _empty_template_id(session)
        old = stack.current_traversal
        started = _begin(
            env,
            session,
            stack,
            action=DELETE,
            template_id=template_id,
            definition=definition,
            expected=old,
            reason="Stack DELETE started",
        )
    _launch(env, started, old)
    return _result(stack, started, definition)


def rollback_stack(
    env: EngineEnv,
    *,
    tenant: str | None,
    stack_ref: str,
    expected: str | None = None,
    reason: str = "Stack ROLLBACK started",
    require_failed: bool = True,
) -> dict[str, Any]:
    """Update the stack back to the last template that completed (seed 000).

    With no such template (a failed create), rolling back deletes every
    resource. `expected` pins the traversal this rollback replaces.
    """
    with session_scope() as session:
        if tenant is None:
            stack = stack_repo.get_stack(session, stack_ref)
        else:
            stack = _load_for_change(session, tenant, stack_ref)
        if stack.action == DELETE:
            raise Conflict(f"Stack {stack.name!r} is being deleted; it cannot be rolled back.")
        if require_failed and stack.status == COMPLETE:
            raise Conflict(
                f"Stack {stack.name!r} is {stack.action}_{stack.status}: only a failed or "
                "in-progress operation can be rolled back."
            )
        if stack.prev_raw_template_id is not None:
            raw = template_repo.get_template(session, stack.prev_raw_template_id)
            template_id = raw.id
            definition = cached_definition(raw.id, raw.template, raw.parameters)
        else:
            template_id, definition = _empty_template_id(session)
        old = stack.current_traversal if expected is None else expected
        started = _begin(
            env,
            session,
            stack,
            action=ROLLBACK,
            template_id=template_id,
            definition=definition,
            expected=old,
            reason=reason,
        )
    _launch(env, started, old)
    return _result(stack, started, definition)


def cancel_update(
    env: EngineEnv, *, tenant: str, stack_ref: str, rollback: bool = True
) -> dict[str, Any]:
    """Stop an update in progress, rolling back to the last complete template or not."""
    with session_scope() as session:
        stack = _load_for_change(session, tenant, stack_ref)
        if not (stack.action in (UPDATE, CREATE) and stack.status == IN_PROGRESS):
            raise Conflict(
                f"Stack {stack.name!r} is {stack.action}_{stack.status}: only an update in "
                "progress can be cancelled."
            )
        old = stack.current_traversal
        action = stack.action
        if not rollback:
            reason = f"Stack {action} cancelled by the user"
            if not stack_repo.swap_traversal(
                session, stack.id, old, str(uuid.uuid4()), status=FAILED, status_reason=reason
            ):
                raise LostRace(f"Stack {stack.name!r} changed while cancelling; try again.")
            [event_id] = event_repo.add_events(
                session, [event_repo.EventRecord(stack.id, action, FAILED, reason)]
            )
            result = {
                "stack_id": stack.id,
                "name": stack.name,
                "action": action,
                "status": f"{action}_{FAILED}",
                "event_id": event_id,
            }
    if not rollback:
        if old:
            env.syncpoints.drop(old)
        return result
    return rollback_stack(
        env,
        tenant=tenant,
        stack_ref=stack_ref,
        expected=old,
        reason=f"Stack {action} cancelled; rolling back",
        require_failed=False,
    )


def restart_traversal(env: EngineEnv, stack_id: str, expected: str, reason: str) -> Started | None:
    """Start the stack's current operation again from the database's truth (the watchdog).

    Converged resources are no-ops on the second pass; nothing is done twice.
    """
    try:
        with session_scope() as session:
            stack = stack_repo.get_stack(session, stack_id)
            if stack.current_traversal != expected or stack.status != IN_PROGRESS:
                return None
            raw = template_repo.get_template(session, stack.raw_template_id or 0)
            definition = cached_definition(raw.id, raw.template, raw.parameters)
            started = _begin(
                env,
                session,
                stack,
                action=stack.action,
                template_id=raw.id,
                definition=definition,
                expected=expected,
                reason=reason,
            )
    except LostRace:
        return None
    _launch(env, started, expected)
    return started


def graph_of(stack: Stack) -> TraversalGraph:
    return TraversalGraph.from_json(stack.current_graph or {"nodes": [], "edges": []})
