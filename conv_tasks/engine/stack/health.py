"""Stack check and mark-unhealthy: asking whether resources are healthy, and saying they are not.

`check_stack` starts a traversal of check nodes (conv_tasks.engine.node.check), one per
resource of the stack's template, with no edges: they run in parallel on any workers,
survive killed workers like every traversal (leases, SyncPoints, the watchdog), and the
stack ends CHECK_COMPLETE or CHECK_FAILED. Like Heat, a check is refused while another
operation is in progress; an update or delete started during a check takes the stack
over, and the check's nodes stop. A nested resource's check checks its child stack
(`check_for_parent`, through the ChildStacks service), keyed by the parent's check so that
a repeated step starts one check of the child; an operation that supersedes the parent's
check leaves the child's check to end by itself (it acts on nothing) or to be superseded
in its turn when the parent's update or delete reaches the child.

`mark_unhealthy` sets a resource's head version CHECK_FAILED (or, reset, CHECK_COMPLETE)
with an event; the next update replaces a CHECK_FAILED resource (conv_tasks.engine.node.decide).

Neither ever changes a definition, stores a template or adds a resource version.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.orm import Session

from conv_tasks.db import events as event_repo
from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.launch import Started, launch, swap_in
from conv_tasks.statuses import Action, Status
from conv_tasks.errors import Conflict, LostRace, NotFound
from conv_tasks.graph import NodeKey, Phase, TraversalGraph

MARKED = "marked unhealthy by the user"
UNMARKED = "marked healthy again by the user"
# Fixed, so that every host derives the same child check traversal from the same key.
_CHILD_CHECK_NAMESPACE = uuid.UUID("0f3d6a52-9c1e-4b7a-8e25-61d0c4b9a7e3")


def check_graph(env: EngineEnv, session: Session, stack: Stack) -> TraversalGraph:
    """One check node for every resource of the stack's template that has a version."""
    raw = template_repo.get_template(session, stack.raw_template_id or 0)
    definition = env.definitions.of_row(raw)
    names = {v.name for v in resource_repo.existing_versions(session, stack.id) if v.is_head}
    wanted = names & set(definition.template.resources)
    return TraversalGraph(NodeKey(Phase.CHECK, name) for name in wanted)


def _begin_check(
    env: EngineEnv,
    session: Session,
    stack: Stack,
    expected: str | None,
    reason: str,
    traversal: str | None = None,
) -> Started:
    return swap_in(
        env,
        session,
        stack,
        check_graph(env, session, stack),
        action=Action.CHECK,
        template_id=stack.raw_template_id or 0,
        expected=expected,
        reason=reason,
        traversal=traversal,
    )


def child_check_traversal(key: str) -> str:
    """The traversal id of the check of a nested stack that its parent's check `key` asks
    for: the same key always names the same check, so a repeated step starts none twice."""
    return str(uuid.uuid5(_CHILD_CHECK_NAMESPACE, key))


def check_for_parent(env: EngineEnv, child_id: str, key: str) -> None:
    """Start the check of a nested stack that its parent's check (`key`) asks for, unless
    that check was started already, another check of it runs (a restarted one), or it
    cannot be checked now (deleted, or another operation under way): the caller reads
    the child's state and decides. Not a user's change of the child: no parent guard."""
    traversal = child_check_traversal(key)
    with session_scope() as session:
        # Locked: two deliveries of the parent's step must not both create the SyncPoints
        # of the same traversal id (the loser would drop the winner's).
        child = session.get(Stack, child_id, with_for_update=True)
        if child is None or child.deleted_at is not None or child.raw_template_id is None:
            return
        if child.current_traversal == traversal or child.status == Status.IN_PROGRESS:
            return
        if child.action == Action.DELETE:
            return
        old = child.current_traversal
        reason = f"Stack CHECK started by its parent's check (resource {child.parent_resource})"
        try:
            started = _begin_check(env, session, child, old, reason, traversal=traversal)
        except LostRace:
            return  # another operation took the child over: its state says which
    launch(env, started, old)


def check_stack(env: EngineEnv, *, tenant: str, stack_ref: str) -> dict[str, Any]:
    """Start a check of every resource of the stack. Conflict while an operation runs."""
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, stack_ref)
        if stack.status == Status.IN_PROGRESS:
            raise Conflict(
                f"Stack {stack.name!r} is {stack.action}_{stack.status}: it can be checked "
                "only when no operation is in progress."
            )
        if stack.action == Action.DELETE or stack.raw_template_id is None:
            raise Conflict(f"Stack {stack.name!r} was deleted; it cannot be checked.")
        old = stack.current_traversal
        started = _begin_check(env, session, stack, old, "Stack CHECK started")
    launch(env, started, old)
    return {
        "stack_id": started.stack_id,
        "name": stack.name,
        "action": Action.CHECK.value,
        "status": f"{Action.CHECK}_{Status.IN_PROGRESS}",
        "traversal": started.traversal,
        "event_id": started.event_id,
    }


def restart_check(
    env: EngineEnv, session: Session, stack: Stack, expected: str, reason: str
) -> Started:
    """The watchdog's restart of a check that stopped moving: every resource is checked
    again by a fresh traversal (a check has nothing to resume)."""
    return _begin_check(env, session, stack, expected, reason)


def mark_unhealthy(
    env: EngineEnv,
    *,
    tenant: str,
    stack_ref: str,
    resource: str,
    reason: str | None,
    reset: bool = False,
) -> dict[str, Any]:
    """Mark the resource CHECK_FAILED (reset: a CHECK_FAILED one CHECK_COMPLETE), as Heat's
    resource mark-unhealthy. Returns {"stack_id", "resource", "status", "changed"}."""
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, stack_ref)
        if stack.status == Status.IN_PROGRESS:
            raise Conflict(
                f"Stack {stack.name!r} is {stack.action}_{stack.status}: its resources can be "
                "marked only when no operation is in progress."
            )
        head = resource_repo.head_of(session, stack.id, resource)
        if head is None or stack.action == Action.DELETE:
            raise NotFound(f"Stack {stack.name!r} has no resource {resource!r}.")
        if head.action == Action.INIT:
            raise Conflict(f"Resource {resource!r} was never created; it cannot be marked.")
        if head.status == Status.IN_PROGRESS:
            raise Conflict(
                f"Resource {resource!r} is {head.action}_{head.status}; it cannot be marked now."
            )
        unhealthy = head.action == Action.CHECK and head.status == Status.FAILED
        text = reason or (UNMARKED if reset else MARKED)
        if reset and not unhealthy:
            # As Heat: clearing a mark that is not there changes nothing.
            return _marked(stack, resource, f"{head.action}_{head.status}", changed=False)
        status = Status.COMPLETE if reset else Status.FAILED
        if not resource_repo.compare_and_swap(
            session,
            head.id,
            head.atomic_key,
            action=Action.CHECK.value,
            status=status.value,
            status_reason="" if reset else text,
        ):
            raise LostRace(f"Resource {resource!r} changed meanwhile; try again.")
        event_repo.add_events(
            session,
            [
                event_repo.EventRecord(
                    stack.id,
                    Action.CHECK,
                    status,
                    text,
                    resource_name=resource,
                    physical_id=head.physical_id,
                )
            ],
        )
    return _marked(stack, resource, f"{Action.CHECK}_{status}", changed=True)


def _marked(stack: Stack, resource: str, status: str, *, changed: bool) -> dict[str, Any]:
    return {"stack_id": stack.id, "resource": resource, "status": status, "changed": changed}
