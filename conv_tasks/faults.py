"""Transient faults of PostgreSQL and Redis, and how a task names one in a single log line.

A restart or a dropped connection is no bug of ours: the task that meets one
tries again by itself (a graph node) or leaves the work to its next run (a
beat job), and says so in one line, never with a traceback. A public task
that cannot reach PostgreSQL or the SyncPoint Redis answers so instead of
failing: `unavailable` makes the refusal that names the service.
"""

from __future__ import annotations

import redis.exceptions
import sqlalchemy.exc

from conv_tasks.errors import Unavailable
from conv_tasks.masked_url import masked, scrubbed
from conv_tasks.settings import Settings

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


# SQLSTATE classes of a connection that could not be made or was lost, not of a statement that
# failed: connection exceptions (08), authorization (28), no such database (3D), too many
# connections (53300) and a server shutting down or starting (57P).
_UNREACHABLE_SQLSTATES = ("08", "28", "3D", "53300", "57P")


def _postgres_unreachable(exc: BaseException) -> bool:
    import psycopg

    orig = exc.orig if isinstance(exc, sqlalchemy.exc.DBAPIError) else exc
    if not isinstance(orig, psycopg.Error):
        return False
    state = orig.sqlstate
    if state is None:
        # No answer from the server at all: refused, reset, timed out, closed.
        return isinstance(orig, psycopg.OperationalError | psycopg.InterfaceError)
    return state.startswith(_UNREACHABLE_SQLSTATES)


def unavailable(exc: BaseException, settings: Settings) -> Unavailable | None:
    """The Unavailable a worker answers when `exc` says PostgreSQL or the SyncPoint Redis of
    `settings` cannot be reached; None for any other error (a deadlock, a bug), raised as is.
    The URL is shown masked, and the detail without its password."""
    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        service, url = "syncpoint_redis", settings.redis_url
    elif _postgres_unreachable(exc):
        service, url = "postgresql", settings.database_url
    else:
        return None
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.orig is not None:
        exc = exc.orig
    lines = str(exc).strip().splitlines()
    detail = scrubbed(lines[0] if lines else type(exc).__name__, url)
    return Unavailable(service, masked(url), detail)
