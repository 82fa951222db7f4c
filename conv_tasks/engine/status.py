"""Action and status names, as in Heat."""

from __future__ import annotations

INIT = "INIT"
CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
ROLLBACK = "ROLLBACK"
CHECK = "CHECK"

IN_PROGRESS = "IN_PROGRESS"
COMPLETE = "COMPLETE"
FAILED = "FAILED"

STACK_ACTIONS = frozenset({CREATE, UPDATE, DELETE, ROLLBACK})


def state(action: str, status: str) -> str:
    """The combined name users see, e.g. UPDATE_COMPLETE."""
    return f"{action}_{status}"
