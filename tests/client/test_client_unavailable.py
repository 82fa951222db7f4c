"""Which service the Client names when a send or a wait fails (a stand-in app, no broker):
the broker, the result store, or what a worker answered `unavailable` about; and the CLI's
line and exit code for each (issue 20). tests/cli/test_cli_unreachable.py stops real servers."""

from __future__ import annotations

from typing import Any

import pytest
import redis.exceptions
from kombu.exceptions import OperationalError

from conv_tasks import errors
from conv_tasks.cli.failures import Exit, explain
from conv_tasks.client import Client

SECRET = "s3cret"
BROKER = f"redis://:{SECRET}@broker.example:6379/0"
RESULTS = f"redis://:{SECRET}@results.example:6379/1"
REFUSED = "Error 111 connecting to results.example:6379. Connection refused."

# Code that runs as Celery's result backend does: its frames are in a celery.backends module.
_BACKEND_CODE: dict[str, Any] = {"__name__": "celery.backends.standin", "redis": redis}
exec(
    "def subscribe():\n    raise redis.exceptions.InvalidResponse('Protocol Error: HTTP/1.1')",
    _BACKEND_CODE,
)


class _Conf:
    broker_url = BROKER
    result_backend = RESULTS


class _Backend:
    connection_errors = (redis.exceptions.ConnectionError, redis.exceptions.InvalidResponse)

    def __init__(self) -> None:
        self.removed: list[Any] = []

    def remove_pending_result(self, result: Any) -> None:
        self.removed.append(result)


class _Sent:
    def __init__(self, backend: _Backend, answer: Any) -> None:
        self.backend = backend
        self.answer = answer

    def get(self, timeout: float) -> Any:
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


class _App:
    """Fails sending with `on_send`, or answers `answer` (an exception is raised by get)."""

    conf = _Conf()

    def __init__(self, *, on_send: BaseException | None = None, answer: Any = None) -> None:
        self.backend = _Backend()
        self.on_send = on_send
        self.answer = answer

    def send_task(self, name: str, **options: Any) -> _Sent:
        if self.on_send is not None:
            raise self.on_send
        return _Sent(self.backend, self.answer)


def _from(exc: BaseException, cause: BaseException) -> BaseException:
    try:
        raise exc from cause
    except BaseException as raised:
        return raised


def _down(app: _App) -> errors.Unavailable:
    with pytest.raises(errors.Unavailable) as caught:
        Client(app, tenant="acme").list()  # type: ignore[arg-type]
    assert SECRET not in str(caught.value)
    code, line = explain(caught.value) or (None, "")
    assert code is Exit.UNREACHABLE and line == str(caught.value) and "\n" not in line
    return caught.value


def test_a_broker_that_refuses_is_the_broker() -> None:
    refused = _from(OperationalError("Error 111 connecting"), ConnectionRefusedError(111))
    down = _down(_App(on_send=refused))
    assert (down.service, down.url) == ("broker", "redis://:**@broker.example:6379/0")
    assert str(down).startswith("cannot reach the broker at redis://:**@broker.example")


def test_the_result_store_giving_up_is_the_result_store() -> None:
    gave_up = _from(
        RuntimeError("Retry limit exceeded while trying to reconnect"),
        redis.exceptions.ConnectionError(REFUSED),
    )
    for app in (_App(on_send=gave_up), _App(answer=gave_up)):
        down = _down(app)
        assert (down.service, down.url, down.detail) == (
            "result_store",
            "redis://:**@results.example:6379/1",
            REFUSED,
        )
    assert app.backend.removed  # the wait stopped listening


def test_a_result_store_failing_inside_the_send_is_not_the_broker() -> None:
    # send_task subscribes to the result inside the broker connection's error wrapping.
    try:
        try:
            _BACKEND_CODE["subscribe"]()
        except redis.exceptions.InvalidResponse as exc:
            raise OperationalError(str(exc)) from exc
    except OperationalError as wrapped:
        down = _down(_App(on_send=wrapped))
    assert down.service == "result_store" and "Protocol Error" in down.detail


def test_a_workers_unavailable_answer_is_raised_with_its_service() -> None:
    answer = errors.Unavailable(
        "syncpoint_redis", "redis://:**@cache.example:6379/1", "Connection refused"
    ).to_dict()
    down = _down(_App(answer={"ok": False, **answer}))
    assert down.service == "syncpoint_redis"
    assert str(down) == (
        "a worker cannot reach the SyncPoint Redis at redis://:**@cache.example:6379/1 "
        "(Connection refused): start it, or point the workers' CONV_TASKS_REDIS_URL at it."
    )


def test_other_errors_pass_through() -> None:
    with pytest.raises(RuntimeError, match="a bug"):
        Client(_App(on_send=RuntimeError("a bug")), tenant="acme").list()  # type: ignore[arg-type]


def test_the_cli_names_a_result_store_giving_up_even_unwrapped() -> None:
    gave_up = _from(RuntimeError("Retry limit exceeded"), redis.exceptions.ConnectionError(REFUSED))
    code, line = explain(gave_up) or (None, "")
    assert code is Exit.UNREACHABLE and "cannot reach Redis" in line and REFUSED in line
