"""Stack suspend and resume: Heat's operations that pause a stack's resources and wake them.

A suspend starts a traversal of suspend nodes (conv_tasks.engine.node.suspend), one per
resource of the stack's template that has a version, in reverse dependency order (a
resource is suspended after everything that depends on it, as a delete walks); a resume
walks the same resources in dependency order (as a create). Each resource's type suspends
or resumes it (a type with nothing to do completes at once); the stack ends
SUSPEND_COMPLETE or SUSPEND_FAILED, RESUME_COMPLETE or RESUME_FAILED, and is never rolled
back. Neither changes a definition, stores a template or adds a resource version.

Which states allow them (refused with a Conflict naming the stack and its state, and
nothing changed otherwise):

- suspend: a stack whose last operation completed (CREATE, UPDATE, ROLLBACK, CHECK or
  RESUME _COMPLETE), or whose suspend or resume failed (the suspend then finishes the job:
  resources suspended already are left as they are). Never while an operation is in
  progress, once suspended, once deleted, or after another operation failed.
- resume: a suspended stack (SUSPEND_COMPLETE), or one whose suspend or resume failed.

While a stack is suspended (its action SUSPEND) it is not updated, rolled back or
checked: it is resumed or deleted (planning.py and health.py refuse the others).

A nested resource's suspend (resume) suspends (resumes) its child stack
(`begin_child_walk`, through the ChildStacks service), keyed by the parent's step so that
a repeated step starts one operation of the child.
"""

from __future__ import annotations

import uuid

from conv_tasks.db import StackRow, Transaction
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.stack.launch import Started, swap_in
from conv_tasks.errors import Conflict, LostRace
from conv_tasks.graph import Phase, TraversalGraph, plan_walk
from conv_tasks.statuses import Action, Status

_PHASES = {Action.SUSPEND: Phase.SUSPEND, Action.RESUME: Phase.RESUME}
# Stack actions that may be suspended once COMPLETE.
_SUSPENDABLE = (Action.CREATE, Action.UPDATE, Action.ROLLBACK, Action.CHECK, Action.RESUME)
_RETRIED = (Action.SUSPEND, Action.RESUME)  # failed: suspended or resumed again
# Fixed, so that every host derives the same child traversal from the same key.
_CHILD_WALK_NAMESPACE = uuid.UUID("7c2e9b14-58d3-4f0a-a6e1-3b9d0c5f2e81")


def is_suspended(stack: StackRow) -> bool:
    """Whether the stack's last operation is a suspend (any status): until it is resumed,
    it is only resumed or deleted."""
    return stack.action == Action.SUSPEND


def suspended_refusal(stack: StackRow, what: str) -> Conflict:
    """The refusal of `what` (an update, a check) of a suspended stack."""
    return Conflict(
        f"Stack {stack.name!r} is {stack.state}: a suspended stack cannot be {what}; "
        "resume it first (or delete it)."
    )


def suspend_problem(stack: StackRow) -> str | None:
    """Why the stack cannot be suspended now, as a sentence; None if it can."""
    if stack.in_progress:
        return (
            f"Stack {stack.name!r} is {stack.state}: it can be suspended only when no "
            "operation is in progress."
        )
    if stack.action == Action.DELETE or stack.raw_template_id is None:
        return f"Stack {stack.name!r} was deleted; it cannot be suspended."
    if stack.action == Action.SUSPEND and stack.status == Status.COMPLETE:
        return f"Stack {stack.name!r} is {stack.state}: it is suspended already."
    if stack.status == Status.FAILED and stack.action not in _RETRIED:
        return (
            f"Stack {stack.name!r} is {stack.state}: only a stack whose last operation "
            "completed can be suspended; update or roll it back first."
        )
    if stack.status == Status.COMPLETE and stack.action not in _SUSPENDABLE:
        return f"Stack {stack.name!r} is {stack.state}; it cannot be suspended."
    return None


def resume_problem(stack: StackRow) -> str | None:
    """Why the stack cannot be resumed now, as a sentence; None if it can."""
    if stack.in_progress:
        return (
            f"Stack {stack.name!r} is {stack.state}: it can be resumed only when no "
            "operation is in progress."
        )
    if stack.action == Action.DELETE or stack.raw_template_id is None:
        return f"Stack {stack.name!r} was deleted; it cannot be resumed."
    if stack.action == Action.SUSPEND:
        return None
    if stack.action == Action.RESUME and stack.status == Status.FAILED:
        return None
    return (
        f"Stack {stack.name!r} is {stack.state}: only a suspended stack (SUSPEND_COMPLETE, "
        "or a failed suspend or resume) can be resumed."
    )


def _walk_graph(env: EngineEnv, tx: Transaction, stack: StackRow, action: Action) -> TraversalGraph:
    """One node for every resource of the stack's template that has a version."""
    definition = env.definitions.of_row(tx.templates.get(stack.raw_template_id or 0))
    names = {v.name for v in tx.resources.existing(stack.id) if v.is_head}
    wanted = names & set(definition.template.resources)
    return plan_walk(_PHASES[action], wanted, definition.dependencies)


def begin_walk(
    env: EngineEnv,
    tx: Transaction,
    stack: StackRow,
    action: Action,
    expected: str | None,
    reason: str,
    *,
    traversal: str | None = None,
    resumes: bool = False,
) -> Started:
    """Swap in a suspend or resume traversal (`traversal`: its id, derived from a parent's
    key; `resumes`: the watchdog restarts the operation of `expected`, which its history
    counts)."""
    return swap_in(
        env,
        tx,
        stack,
        _walk_graph(env, tx, stack, action),
        action=action,
        template_id=stack.raw_template_id or 0,
        expected=expected,
        reason=reason,
        traversal=traversal,
        resumes=resumes,
    )


def begin_user_walk(env: EngineEnv, tx: Transaction, stack: StackRow, action: Action) -> Started:
    """A user's suspend or resume of the stack; Conflict when its state forbids it."""
    problem = suspend_problem(stack) if action == Action.SUSPEND else resume_problem(stack)
    if problem is not None:
        raise Conflict(problem)
    return begin_walk(env, tx, stack, action, stack.current_traversal, f"Stack {action} started")


def child_walk_traversal(key: str, action: Action) -> str:
    """The traversal id of the suspend (resume) of a nested stack that its parent's step
    `key` asks for: the same key always names the same operation, so a repeated step starts
    none twice."""
    return str(uuid.uuid5(_CHILD_WALK_NAMESPACE, f"{action}:{key}"))


def begin_child_walk(
    env: EngineEnv, tx: Transaction, child_id: str, action: Action, key: str
) -> tuple[Started, str | None] | None:
    """Start the suspend (resume) of a nested stack that its parent's resource (step `key`)
    asks for, unless it was started already or the child's state forbids it (deleted, an
    operation under way, suspended already, ...): then None, and the caller reads the
    child's state and decides. Not a user's change of the child: no parent guard."""
    traversal = child_walk_traversal(key, action)
    # Locked: two deliveries of the parent's step must not both create the SyncPoints of
    # the same traversal id (the loser would drop the winner's).
    child = tx.stacks.get_any(child_id, lock=True)
    if child is None or child.deleted or child.current_traversal == traversal:
        return None
    problem = suspend_problem(child) if action == Action.SUSPEND else resume_problem(child)
    if problem is not None:
        return None
    old = child.current_traversal
    reason = f"Stack {action} started by its parent (resource {child.parent_resource})"
    try:
        return begin_walk(env, tx, child, action, old, reason, traversal=traversal), old
    except LostRace:
        return None  # another operation took the child over: its state says which
