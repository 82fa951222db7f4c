"""Acting through a resource's PostgreSQL connection: its ready client, the bounds every
statement runs within, and what a psycopg error becomes (failures.py).

The client is the connection's autocommit psycopg connection, cached per worker process
and shared with every resource that names the same connection: a step sets its bounds
(lock and statement timeouts) for as long as it acts and resets them after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg

from conv_tasks.resources.builtin.postgresql.failures import provider_error
from conv_tasks.resources.builtin.postgresql.statements import BOUNDS, UNBOUNDED
from conv_tasks.sdk import ActionContext


@contextlib.contextmanager
def acting(ctx: ActionContext, doing: str, *, hide: Sequence[str] = ()) -> Iterator[Any]:
    """The connection's client, for `doing` (words for a message: "creating role 'app'").
    A psycopg error inside becomes the SDK's error, whose message masks the texts in `hide`
    (read when the error happens: a list the block adds a password verifier to will do)."""
    name = ctx.connection.name if ctx.connection is not None else ""
    try:
        conn = ctx.client()
        conn.execute(BOUNDS)
        try:
            yield conn
        finally:
            if not (conn.closed or conn.broken):
                with contextlib.suppress(psycopg.Error):
                    conn.execute(UNBOUNDED)
    except psycopg.Error as exc:
        raise provider_error(
            exc, resource=ctx.resource_name, doing=doing, connection=name, hide=tuple(hide)
        ) from None


def password_verifier(conn: Any, role: str, password: str | None) -> str | None:
    """What PostgreSQL stores for `password` (None: no password): computed here, by libpq,
    with the algorithm the server's password_encryption names, so the password itself is
    never sent."""
    if password is None:
        return None
    verifier: bytes = conn.pgconn.encrypt_password(password.encode(), role.encode(), None)
    return verifier.decode("ascii")
