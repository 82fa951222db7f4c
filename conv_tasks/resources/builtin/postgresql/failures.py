"""What a PostgreSQL error means to the engine: the SDK error it becomes. Pure.

- The server cannot be reached, the connection broke, a lock or a statement timed out, the
  server is short of resources or shutting down, an object is in use: Transient (the engine
  asks again later, with a backoff).
- Authentication refused (a wrong password in the connection's secret file): Fatal.
- An object that already exists: AlreadyExists. One that other objects still depend on (a
  role that owns a database): Conflict.
- Anything else (permission denied, a name that is reserved, an encoding that does not
  match the locale, a role that does not exist): Fatal.

Every message is one line naming the resource and what was being done, built from the
server's own primary message and detail, never from str(error): psycopg's text of an error
can quote the statement (`LINE 1: ...`), and a statement may hold a password verifier. The
texts in `hide` are masked whatever the server said.
"""

from __future__ import annotations

import psycopg

from conv_tasks.sdk import (
    AlreadyExists,
    Conflict,
    Fatal,
    ProviderError,
    Transient,
)

MASK = "******"

# SQLSTATE classes and codes worth asking again about.
_TRANSIENT_CLASSES = ("08", "40", "53", "57P")  # connection, rollback, resources, shutdown
_TRANSIENT_STATES = frozenset(
    {
        "55P03",  # lock_not_available: our lock_timeout ran out
        "57014",  # query_canceled: our statement_timeout ran out
        "55006",  # object_in_use: a database is being accessed by other users
        "58000",  # system_error (an I/O error on the server)
    }
)
_ALREADY_EXISTS = frozenset({"42710", "42P04"})  # duplicate_object, duplicate_database
_DEPENDED_ON = "2BP01"  # dependent_objects_still_exist
# What libpq says when it could not log in (it never says the password).
_AUTHENTICATION_WORDS = ("authentication failed", "no password supplied")


def provider_error(
    exc: psycopg.Error,
    *,
    resource: str,
    doing: str,
    connection: str,
    hide: tuple[str, ...] = (),
) -> ProviderError:
    """The SDK error `exc` (raised while `doing`, through `connection`) becomes; its message
    masks the texts in `hide`."""
    found = _classified(exc, resource, doing, connection)
    return type(found)(_masked(str(found), hide), resource=resource)


def _classified(exc: psycopg.Error, resource: str, doing: str, connection: str) -> ProviderError:
    state = exc.sqlstate
    if state is None:
        return _unreachable(exc, resource, connection)
    said = _server_said(exc)
    message = f"Resource {resource}: {doing} failed: {said}"
    if state.startswith(_TRANSIENT_CLASSES) or state in _TRANSIENT_STATES:
        return Transient(message, resource=resource)
    if state.startswith("28"):
        return Fatal(
            f"Resource {resource}: connection {connection!r} could not log in: {said}",
            resource=resource,
        )
    if state in _ALREADY_EXISTS:
        return AlreadyExists(message, resource=resource)
    if state == _DEPENDED_ON:
        return Conflict(message, resource=resource)
    return Fatal(message, resource=resource)


def _unreachable(exc: psycopg.Error, resource: str, connection: str) -> ProviderError:
    """An error with no SQLSTATE: the connection could not be made, or broke."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    said = lines[0] if lines else type(exc).__name__
    if isinstance(exc, psycopg.OperationalError) and any(
        word in said for word in _AUTHENTICATION_WORDS
    ):
        return Fatal(
            f"Resource {resource}: connection {connection!r} could not log in: {said}",
            resource=resource,
        )
    return Transient(
        f"Resource {resource}: PostgreSQL could not be reached through connection "
        f"{connection!r}: {said}",
        resource=resource,
    )


def _server_said(exc: psycopg.Error) -> str:
    diag = exc.diag
    primary = (diag.message_primary or "").strip() or f"SQLSTATE {exc.sqlstate}"
    detail = " ".join((diag.message_detail or "").split())
    return f"{primary} ({detail})" if detail else primary


def _masked(text: str, hide: tuple[str, ...]) -> str:
    for secret in sorted(hide, key=len, reverse=True):
        if secret:
            text = text.replace(secret, MASK)
    return text
