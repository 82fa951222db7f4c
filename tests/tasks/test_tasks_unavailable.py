"""A public task whose worker cannot reach PostgreSQL or the SyncPoint Redis answers
`unavailable`, naming the service and its URL with the password masked (issue 20); any other
database error is still raised. No services: the engine call is replaced by one that fails."""

from __future__ import annotations

from typing import Any

import psycopg
import psycopg.errors
import pytest
import redis.exceptions
import sqlalchemy.exc

from conv_tasks import errors
from conv_tasks.faults import unavailable
from conv_tasks.settings import Settings
from conv_tasks.tasks import stack as stack_tasks

SECRET = "pg-s3cret"
SETTINGS = Settings(
    database_url=f"postgresql+psycopg://conv:{SECRET}@db.example:5432/conv_tasks",
    redis_url=f"redis://:{SECRET}@cache.example:6379/1",
)


def _wrapped(orig: Exception) -> sqlalchemy.exc.OperationalError:
    return sqlalchemy.exc.OperationalError("SELECT 1", {}, orig)


def test_postgresql_that_does_not_answer_is_unavailable() -> None:
    refused = psycopg.OperationalError(
        'connection failed: connection to server at "10.0.0.5", port 5432 failed: Connection '
        "refused\n\tIs the server running on that host and accepting TCP/IP connections?"
    )
    down = unavailable(_wrapped(refused), SETTINGS)
    assert isinstance(down, errors.Unavailable)
    assert (down.service, down.url) == (
        "postgresql",
        "postgresql+psycopg://conv:**@db.example:5432/conv_tasks",
    )
    assert down.detail.endswith("Connection refused")  # the first line only
    assert str(down) == (
        "a worker cannot reach PostgreSQL at postgresql+psycopg://conv:**@db.example:5432/"
        f"conv_tasks ({down.detail}): start it, or point the workers' CONV_TASKS_DATABASE_URL "
        "at it."
    )


@pytest.mark.parametrize(
    "orig",
    [
        psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
        psycopg.errors.InvalidPassword(f"password authentication failed ({SECRET})"),
    ],
)
def test_a_lost_or_refused_session_is_unavailable_without_its_password(orig: Exception) -> None:
    down = unavailable(_wrapped(orig), SETTINGS)
    assert down is not None and down.service == "postgresql"
    assert SECRET not in str(down.to_dict())


@pytest.mark.parametrize(
    "exc",
    [
        _wrapped(psycopg.errors.DeadlockDetected("deadlock detected")),
        _wrapped(psycopg.errors.SerializationFailure("could not serialize access")),
        sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("not psycopg")),
        ValueError("a bug"),
    ],
)
def test_a_failed_statement_is_no_unavailability(exc: Exception) -> None:
    assert unavailable(exc, SETTINGS) is None


@pytest.mark.parametrize(
    "exc",
    [
        redis.exceptions.ConnectionError("Error 111 connecting to cache.example:6379."),
        redis.exceptions.TimeoutError("Timeout reading from socket"),
    ],
)
def test_redis_that_does_not_answer_is_the_syncpoint_redis(exc: Exception) -> None:
    down = unavailable(exc, SETTINGS)
    assert down is not None
    assert down.to_dict() == {
        "error": "unavailable",
        "message": str(down),
        "service": "syncpoint_redis",
        "url": "redis://:**@cache.example:6379/1",
        "detail": str(exc),
        "problems": [],
    }


def _failing(exc: Exception) -> Any:
    def list_stacks(*_args: Any, **_kwargs: Any) -> Any:
        raise exc

    return list_stacks


def test_the_public_task_answers_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stack_tasks, "engine_env", lambda: None)
    refused = psycopg.OperationalError("connection failed: Connection refused")
    monkeypatch.setattr(stack_tasks.engine, "list_stacks", _failing(_wrapped(refused)))
    answer = stack_tasks.list_.run(tenant="acme")
    assert answer["ok"] is False and answer["error"] == "unavailable"
    assert answer["service"] == "postgresql"
    assert "Connection refused" in answer["message"]


def test_the_public_task_raises_what_is_not_unavailability(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stack_tasks, "engine_env", lambda: None)
    deadlock = _wrapped(psycopg.errors.DeadlockDetected("deadlock detected"))
    monkeypatch.setattr(stack_tasks.engine, "list_stacks", _failing(deadlock))
    with pytest.raises(sqlalchemy.exc.OperationalError):
        stack_tasks.list_.run(tenant="acme")
