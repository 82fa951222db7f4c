"""Stack check and mark-unhealthy: asking whether resources are healthy, and saying they are not.

A check starts a traversal of check nodes (conv_tasks.engine.node.check), one per
resource of the stack's template, with no edges: they run in parallel on any workers,
survive killed workers like every traversal (leases, SyncPoints, the watchdog), and the
stack ends CHECK_COMPLETE or CHECK_FAILED. Like Heat, a check is refused while another
operation is in progress; an update or delete started during a check takes the stack
over, and the check's nodes stop. A nested resource's check checks its child stack
(`begin_child_check`, through the ChildStacks service), keyed by the parent's check so
that a repeated step starts one check of the child; an operation that supersedes the
parent's check leaves the child's check to end by itself (it acts on nothing) or to be
superseded in its turn when the parent's update or delete reaches the child.

`mark` sets a resource's head version CHECK_FAILED (or, reset, CHECK_COMPLETE) with an
event; the next update replaces a CHECK_FAILED resource (conv_tasks.engine.node.decide).

Neither ever changes a definition, stores a template or adds a resource version.
"""

from __future__ import annotations

import uuid

from conv_tasks.db import EventRecord, StackRow, Transaction
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.launch import Started, swap_in
from conv_tasks.engine.stack.results import Marked
from conv_tasks.engine.stack.suspension import is_suspended, suspended_refusal
from conv_tasks.errors import Conflict, LostRace, NotFound
from conv_tasks.graph import NodeKey, Phase, TraversalGraph
from conv_tasks.statuses import Action, Status, state_name

MARKED = "marked unhealthy by the user"
UNMARKED = "marked healthy again by the user"
# Fixed, so that every host derives the same child check traversal from the same key.
_CHILD_CHECK_NAMESPACE = uuid.UUID("0f3d6a52-9c1e-4b7a-8e25-61d0c4b9a7e3")


def _check_graph(env: EngineEnv, tx: Transaction, stack: StackRow) -> TraversalGraph:
    """One check node for every resource of the stack's template that has a version."""
    definition = env.definitions.of_row(tx.templates.get(stack.raw_template_id or 0))
    names = {v.name for v in tx.resources.existing(stack.id) if v.is_head}
    wanted = names & set(definition.template.resources)
    return TraversalGraph(NodeKey(Phase.CHECK, name) for name in wanted)


def begin_check(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    expected: str | None,
    reason: str,
    traversal: str | None = None,
    *,
    resumes: bool = False,
) -> Started:
    """Swap in a check traversal (a fresh one: a check has nothing to resume; `resumes`:
    the watchdog restarts the check of `expected`, which its history counts)."""
    return swap_in(
        env,
        tx,
        stack,
        _check_graph(env, tx, stack),
        action=Action.CHECK,
        template_id=stack.raw_template_id or 0,
        expected=expected,
        reason=reason,
        traversal=traversal,
        resumes=resumes,
    )


def begin_user_check(env: EngineEnv, tx: Transaction, stack: StackRow) -> Started:
    """A user's check of the stack. Conflict while an operation runs, or once deleted."""
    if stack.in_progress:
        raise Conflict(
            f"Stack {stack.name!r} is {stack.state}: it can be checked only when no "
            "operation is in progress."
        )
    if stack.action == Action.DELETE or stack.raw_template_id is None:
        raise Conflict(f"Stack {stack.name!r} was deleted; it cannot be checked.")
    if is_suspended(stack):
        raise suspended_refusal(stack, "checked")
    return begin_check(env, tx, stack, stack.current_traversal, "Stack CHECK started")


def child_check_traversal(key: str) -> str:
    """The traversal id of the check of a nested stack that its parent's check `key` asks
    for: the same key always names the same check, so a repeated step starts none twice."""
    return str(uuid.uuid5(_CHILD_CHECK_NAMESPACE, key))


def begin_child_check(
    env: EngineEnv, tx: Transaction, child_id: str, key: str
) -> tuple[Started, str | None] | None:
    """Start the check of a nested stack that its parent's check (`key`) asks for, unless
    that check was started already, another check of it runs (a restarted one), or it
    cannot be checked now (deleted, or another operation under way): then None, and the
    caller reads the child's state and decides. Not a user's change of the child: no
    parent guard."""
    traversal = child_check_traversal(key)
    # Locked: two deliveries of the parent's step must not both create the SyncPoints of
    # the same traversal id (the loser would drop the winner's).
    child = tx.stacks.get_any(child_id, lock=True)
    if child is None or child.deleted or child.raw_template_id is None:
        return None
    if child.current_traversal == traversal or child.in_progress:
        return None
    if child.action == Action.DELETE:
        return None
    old = child.current_traversal
    reason = f"Stack CHECK started by its parent's check (resource {child.parent_resource})"
    try:
        return begin_check(env, tx, child, old, reason, traversal=traversal), old
    except LostRace:
        return None  # another operation took the child over: its state says which


def mark(
    tx: Transaction, stack: StackRow, resource: str, reason: str | None, *, reset: bool
) -> Marked:
    """Mark the resource CHECK_FAILED (reset: a CHECK_FAILED one CHECK_COMPLETE), as Heat's
    resource mark-unhealthy."""
    if stack.in_progress:
        raise Conflict(
            f"Stack {stack.name!r} is {stack.state}: its resources can be marked only when "
            "no operation is in progress."
        )
    head = tx.resources.head(stack.id, resource)
    if head is None or stack.action == Action.DELETE:
        raise NotFound(f"Stack {stack.name!r} has no resource {resource!r}.")
    if head.action == Action.INIT:
        raise Conflict(f"Resource {resource!r} was never created; it cannot be marked.")
    if head.status == Status.IN_PROGRESS:
        raise Conflict(f"Resource {resource!r} is {head.state}; it cannot be marked now.")
    unhealthy = head.action == Action.CHECK and head.status == Status.FAILED
    text = reason or (UNMARKED if reset else MARKED)
    if reset and not unhealthy:
        # As Heat: clearing a mark that is not there changes nothing.
        return Marked(stack.id, resource, head.state, changed=False)
    status = Status.COMPLETE if reset else Status.FAILED
    if not tx.resources.compare_and_swap(
        head.id,
        head.atomic_key,
        action=Action.CHECK.value,
        status=status.value,
        status_reason="" if reset else text,
    ):
        raise LostRace(f"Resource {resource!r} changed meanwhile; try again.")
    tx.events.add(
        [
            EventRecord(
                stack.id,
                Action.CHECK,
                status,
                text,
                resource_name=resource,
                physical_id=head.physical_id,
            )
        ]
    )
    return Marked(stack.id, resource, state_name(Action.CHECK, status), changed=True)
