"""The actions and statuses of stacks, resources and events, named as in Heat.

The vocabulary every layer shares (db, engine, resources, tasks, cli): it imports nothing
of conv_tasks. `state_name` is the one place that joins an action and a status into the
state users read (`UPDATE_COMPLETE`).
"""

from __future__ import annotations

from enum import StrEnum


class Action(StrEnum):
    """What was done, or is being done, to a stack or a resource."""

    INIT = "INIT"  # a resource version that has not been created yet
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    ROLLBACK = "ROLLBACK"
    CHECK = "CHECK"  # a stack check, or a resource marked (un)healthy
    SUSPEND = "SUSPEND"  # a stack suspend: resources suspended, dependants first
    RESUME = "RESUME"  # a stack resume: resources resumed, dependencies first
    SIGNAL = "SIGNAL"  # events only: a signal reached a resource


class Status(StrEnum):
    """How that action stands."""

    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


class OperationOutcome(StrEnum):
    """How a stack operation (one row of its history) stands: as a status, or SUPERSEDED when
    a newer operation took the stack over before it ended."""

    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"
    SUPERSEDED = "SUPERSEDED"


def state_name(action: str, status: str) -> str:
    """The state of a stack, resource or event as users read it: `CREATE_IN_PROGRESS`."""
    return f"{action}_{status}"


def status_of(state: str) -> Status | None:
    """The status a state (`CREATE_IN_PROGRESS`) ends in; None for one that ends in none."""
    return next((status for status in Status if state.endswith(f"_{status}")), None)


# The actions a stack's operation may have, which a state filter may name.
STACK_ACTIONS = (
    Action.CREATE,
    Action.UPDATE,
    Action.DELETE,
    Action.ROLLBACK,
    Action.CHECK,
    Action.SUSPEND,
    Action.RESUME,
)
# Every state filter value there is: a bare status, or a stack action's state.
STATE_FILTERS = (
    *(status.value for status in Status),
    *(state_name(action, status) for action in STACK_ACTIONS for status in Status),
)


def parse_state_filter(value: str) -> tuple[str | None, str] | None:
    """What a state filter value (`FAILED`, `CREATE_COMPLETE`) matches: (None, status) for a
    bare status, which any action matches, (action, status) for a state; None if it is
    neither."""
    wanted = value
    if wanted not in STATE_FILTERS:
        return None
    status = status_of(wanted) or Status(wanted)
    if wanted == status.value:
        return None, status.value
    return wanted[: -len(status.value) - 1], status.value
