"""The edge's one way to the engine: the public tasks, through conv_tasks.client.

Celery's `.get()` blocks, so every call runs in a worker thread, at most `threads` at once
(an anyio CapacityLimiter): the event loop never waits on the broker, and a burst of requests
queues here instead of opening unbounded threads. A refusal comes back as the task's own
answer (`{"ok": false, "error", ...}`), which faults.fault_of_answer turns into Heat's body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from celery import Celery

from conv_tasks import errors
from conv_tasks.client import Client
from conv_tasks.edge.faults import ApiFault

T = TypeVar("T")


class TaskGateway:
    """Sends public tasks for a tenant without blocking the event loop."""

    def __init__(self, app: Celery | None, *, threads: int, timeout: float) -> None:
        self._app = app
        self._limiter = anyio.CapacityLimiter(threads)
        self._timeout = timeout

    async def run(self, work: Callable[[], T]) -> T:
        """Run blocking `work` in the bounded thread pool."""
        return await anyio.to_thread.run_sync(work, limiter=self._limiter)

    async def call(self, tenant: str, task: str, **kwargs: Any) -> dict[str, Any]:
        """The task's JSON answer, `ok` true or false; ApiFault 503 if no answer came."""
        return await self.run(lambda: self._answer(tenant, lambda c: c.call(task, **kwargs)))

    async def as_host(self, work: Callable[[Client], dict[str, Any]]) -> dict[str, Any]:
        """The answer of a host's request (a handle's or a server's credential, no tenant),
        `work` making it with a Client; as `call`."""
        return await self.run(lambda: self._answer("", work))

    def _answer(self, tenant: str, work: Callable[[Client], dict[str, Any]]) -> dict[str, Any]:
        from celery.exceptions import TimeoutError as NoAnswer

        client = Client(self._app, tenant=tenant, timeout=self._timeout)
        try:
            return work(client)
        except errors.Unavailable as exc:
            return {"ok": False, **exc.to_dict()}
        except errors.InvalidInput as exc:
            return {"ok": False, **exc.to_dict(), "error": exc.code}
        except errors.ConvTasksError as exc:
            return {"ok": False, **exc.to_dict(), "problems": []}
        except NoAnswer:
            raise ApiFault(
                503,
                "ServiceUnavailable",
                f"No conv_tasks worker answered within {self._timeout:g} seconds.",
            ) from None
