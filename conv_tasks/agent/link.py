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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from celery import Celery

from conv_tasks.broker.options import TASK_QUEUE
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


def agent_app() -> Celery:
    """A Celery app that can send conv_tasks' public tasks, configured from the environment."""
    app = Celery("conv_tasks_agent")
    app.config_from_object("celeryconfig")
    return app


class CeleryServerLink:
    """The engine over the broker, each request waited for at most `timeout` seconds."""

    def __init__(self, app: Celery, *, timeout: float = 30.0) -> None:
        self.app = app
        self.timeout = timeout

    def _call(self, task: str, kwargs: dict[str, Any]) -> Answer:
        shown = {k: (MASK if k == "credential" else v) for k, v in kwargs.items()}
        if isinstance(shown.get("details"), Mapping):
            shown["details"] = sorted(shown["details"])
        try:
            async_result = self.app.send_task(
                task, kwargs=kwargs, kwargsrepr=repr(shown), queue=TASK_QUEUE
            )
            try:
                result = async_result.get(timeout=self.timeout)
            finally:
                # The answer may hold credentials (the metadata does): do not leave it stored.
                async_result.forget()
        except ServerUnreachable:
            raise
        except Exception as exc:  # any failure to get an answer is a reason to try again later
            raise ServerUnreachable(f"{task}: {type(exc).__name__}: {exc}") from None
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
