"""The actions and statuses of stacks, resources and events, named as in Heat."""

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
    SIGNAL = "SIGNAL"  # events only: a signal reached a resource


class Status(StrEnum):
    """How that action stands."""

    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"
