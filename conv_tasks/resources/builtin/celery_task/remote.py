"""Talking to another service's Celery workers through a Celery app: send a call, read its
state from the result backend, revoke it. The only module of the type that does I/O.

Every function returns at once: a state is one read of the result backend, never a wait
(no `AsyncResult.get()`), and a send is one publish, without Celery's publish retries (the
engine retries a step, with a backoff). What the broker or the result backend answers
badly becomes one of the errors below, whose messages hold no URL.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from celery import Celery, states
from celery.backends.base import DisabledBackend, KeyValueStoreBackend
from celery.result import denied_join_result
from kombu.exceptions import ContentDisallowed, DecodeError, OperationalError

from conv_tasks.resources.builtin.celery_task.call import TaskCall, one_line

# How a running task is stopped when its action is interrupted or times out.
REVOKE_SIGNAL = "SIGTERM"


class RemoteError(Exception):
    """The service's broker or result backend could not be used (the message says why)."""


class Unreachable(RemoteError):
    """The broker or the result backend cannot be reached now: ask again later."""


class Refused(RemoteError):
    """The broker or the result backend refuses the connection's credentials."""


class Unreadable(RemoteError):
    """The result backend holds something that is not a JSON task result."""


@dataclass(frozen=True)
class TaskState:
    """A task's state as its result backend has it (Celery's state names)."""

    state: str
    result: Any = None  # SUCCESS: the task's return value, as decoded JSON
    error: str | None = None  # FAILURE: "ExceptionType: its message"

    @property
    def pending(self) -> bool:
        """PENDING: the backend knows nothing of the task (not sent, or sent and not yet
        taken by a worker that records its start, or its result expired)."""
        return self.state == states.PENDING

    @property
    def succeeded(self) -> bool:
        return self.state == states.SUCCESS

    @property
    def failed(self) -> bool:
        return self.state in (states.FAILURE, states.REVOKED, states.REJECTED)


def read_state(app: Celery, task_id: str) -> TaskState:
    """The task's state now: one read of the result backend."""
    backend = app.backend
    if isinstance(backend, DisabledBackend):
        raise Refused("it has no result backend to read the task's result from")
    with _talking("result backend"):
        try:
            if isinstance(backend, KeyValueStoreBackend):
                raw = backend.get(backend.get_key_for_task(task_id))
                meta = backend.decode(raw) if raw else {"status": states.PENDING}
            else:
                meta = backend.get_task_meta(task_id)
        except ContentDisallowed as exc:
            raise Unreadable(f"its result is not JSON ({one_line(str(exc))})") from None
        except DecodeError as exc:
            raise Unreadable(f"its result is not valid JSON ({one_line(str(exc))})") from None
    if not isinstance(meta, Mapping) or not isinstance(meta.get("status"), str):
        raise Unreadable("the result backend holds something that is not a Celery task result")
    state = str(meta["status"])
    result = meta.get("result")
    if state == states.FAILURE:
        return TaskState(state, error=_exception_text(result))
    if state == states.SUCCESS:
        return TaskState(state, result=result)
    return TaskState(state)


def send(app: Celery, call: TaskCall, task_id: str, kwargs: Mapping[str, Any]) -> None:
    """Publish the call as task `task_id` (one attempt)."""
    options: dict[str, Any] = {"task_id": task_id, "retry": False, "add_to_parent": False}
    if call.queue:
        options["queue"] = call.queue
    # Celery would otherwise subscribe this process to the task's result (for a `.get()`
    # that never comes) in pools where joining does not block, and never let go.
    with _talking("broker"), denied_join_result():
        app.send_task(call.task, kwargs=dict(kwargs), **options)


def revoke(app: Celery, task_id: str) -> None:
    """Ask the service's workers to drop the task if it has not started, and to stop it
    (REVOKE_SIGNAL to the process running it) if it has. A broadcast: nothing waits for it."""
    with _talking("broker"):
        app.control.revoke(task_id, terminate=True, signal=REVOKE_SIGNAL)


def _exception_text(stored: Any) -> str:
    """'Type: message' of a failed task's exception, as the backend stored it (a mapping
    from a JSON backend, an exception from others)."""
    if isinstance(stored, BaseException):
        return one_line(f"{type(stored).__name__}: {stored}")
    if isinstance(stored, Mapping):
        kind = str(stored.get("exc_type") or "Exception")
        message = stored.get("exc_message")
        if isinstance(message, list | tuple):
            message = ", ".join(str(part) for part in message)
        text = f"{kind}: {message}" if message not in (None, "") else kind
        return one_line(text)
    return one_line(f"Exception: {stored}")


def _authentication(exc: BaseException) -> bool:
    """Whether `exc`, or what it was raised from, is a refusal of the credentials."""
    import redis

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, redis.exceptions.AuthenticationError):
            return True
        name = type(current).__name__
        if name in ("AccessRefused", "AuthenticationError") or "WRONGPASS" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


@contextlib.contextmanager
def _talking(what: str) -> Iterator[None]:
    """Turn the errors of the broker or result backend (`what`) into RemoteErrors."""
    import redis

    try:
        yield
    except RemoteError:
        raise
    except (OperationalError, redis.exceptions.RedisError, OSError) as exc:
        if _authentication(exc):
            raise Refused(f"its {what} refuses the connection's credentials") from None
        if isinstance(exc, redis.exceptions.ResponseError):
            raise Refused(f"its {what} answered: {one_line(str(exc))}") from None
        raise Unreachable(
            f"its {what} cannot be reached ({type(exc).__name__}: {one_line(str(exc))})"
        ) from None
