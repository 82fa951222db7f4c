"""Transient faults of PostgreSQL and Redis, and how a task names one in a single log line.

A restart or a dropped connection is no bug of ours: the task that meets one
tries again by itself (a graph node) or leaves the work to its next run (a
beat job), and says so in one line, never with a traceback.
"""

from __future__ import annotations

import redis.exceptions
import sqlalchemy.exc

TRANSIENT_FAULTS: tuple[type[Exception], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.BusyLoadingError,
)


def describe(exc: BaseException) -> str:
    """The fault's type and the first line of its message, for a one-line warning."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__} ({lines[0] if lines else 'no detail'})"
