"""The agent's line to the engine: two public tasks sent over the broker.

`conv_tasks.deployment.metadata` returns the server's deployments,
`conv_tasks.deployment.signal` reports on one. Both answer JSON:
{"ok": true, ...} or a refusal {"ok": false, "error": code, "message": ...}.
A broker or result backend that does not answer raises ServerUnreachable;
the agent tries again on its next poll.

The Celery app here is built from the same settings as the workers'
(celeryconfig) but includes no task module: the agent never imports worker
code. Credentials travel in the message only; what monitors see of it
(`kwargsrepr`) has them masked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from celery import Celery

from conv_tasks.broker import TASK_QUEUE
from conv_tasks.errors import ConvTasksError

METADATA_TASK = "conv_tasks.deployment.metadata"
SIGNAL_TASK = "conv_tasks.deployment.signal"
NOT_AUTHORIZED = "not_authorized"
MASK = "******"


class ServerUnreachable(ConvTasksError):
    """The broker, the result backend or the engine did not answer in time."""

    code = "unreachable"


@dataclass(frozen=True)
class Answer:
    """The engine's JSON answer to one request."""

    ok: bool
    error: str = ""
    message: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_result(cls, result: Any) -> Answer:
        if not isinstance(result, Mapping):
            raise ServerUnreachable(f"the engine answered {type(result).__name__}, not an object")
        if result.get("ok") is True:
            return cls(True, data=result)
        return cls(
            False,
            error=str(result.get("error") or "refused"),
            message=str(result.get("message") or "the request was refused"),
            data=result,
        )

    def refusal(self) -> str:
        return f"{self.error}: {self.message}"


class ServerLink(Protocol):
    """What the agent needs from the engine (a fake stands in for it in tests)."""

    def fetch(self, server: str, credential: str) -> Answer: ...

    def signal(
        self, deployment: str, credential: str, action: str, details: Mapping[str, Any]
    ) -> Answer: ...


# A result backend that does not answer gives up after a few seconds, not Celery's default of
# twenty retries; the agent tries again on its next poll, with a new app.
BACKEND_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}


def agent_app() -> Celery:
    """A Celery app that can send conv_tasks' public tasks, configured from the environment."""
    app = Celery("conv_tasks_agent")
    app.config_from_object("celeryconfig")
    options = dict(app.conf.result_backend_transport_options or {})
    app.conf.result_backend_transport_options = {**options, "retry_policy": BACKEND_RETRY_POLICY}
    return app


class CeleryServerLink:
    """The engine over the broker, each request waited for at most `timeout` seconds.

    After a request that got no answer, the app is closed and a new one made for the next:
    a Celery result consumer that lost its backend does not always recover.
    """

    def __init__(
        self, app_factory: Callable[[], Celery] = agent_app, *, timeout: float = 30.0
    ) -> None:
        self.app_factory = app_factory
        self.timeout = timeout
        self._app: Celery | None = None

    @property
    def app(self) -> Celery:
        if self._app is None:
            self._app = self.app_factory()
        return self._app

    def _drop_app(self) -> None:
        app, self._app = self._app, None
        if app is not None:
            with contextlib.suppress(Exception):
                app.close()

    def _call(self, task: str, kwargs: dict[str, Any]) -> Answer:
        shown = {k: (MASK if k == "credential" else v) for k, v in kwargs.items()}
        if isinstance(shown.get("details"), Mapping):
            shown["details"] = sorted(shown["details"])
        try:
            async_result = self.app.send_task(
                task, kwargs=kwargs, kwargsrepr=repr(shown), queue=TASK_QUEUE
            )
            result = async_result.get(timeout=self.timeout)
        except Exception as exc:  # any failure to get an answer is a reason to try again later
            self._drop_app()
            first_line = (str(exc).strip().splitlines() or [""])[0]
            raise ServerUnreachable(f"{task}: {type(exc).__name__}: {first_line}") from None
        # The answer may hold credentials (the metadata does): do not leave it stored.
        with contextlib.suppress(Exception):
            async_result.forget()
        return Answer.from_result(result)

    def fetch(self, server: str, credential: str) -> Answer:
        return self._call(METADATA_TASK, {"server": server, "credential": credential})

    def signal(
        self, deployment: str, credential: str, action: str, details: Mapping[str, Any]
    ) -> Answer:
        return self._call(
            SIGNAL_TASK,
            {
                "deployment": deployment,
                "credential": credential,
                "action": action,
                "details": dict(details),
            },
        )
