"""The ASGI application of the HTTP edge: the web view's paths to conv_tasks.ui, every other
to Heat's API (conv_tasks.api), an access log, and a last line of defence.

Whatever escapes a face becomes Heat's fault body with 500; nothing escapes as a bare 500.
The access log names the method, the path and the status: never a header, a query value or
a body.
"""

from __future__ import annotations

import logging
import time

from celery import Celery
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from conv_tasks.api import ApiApp, json_response
from conv_tasks.edge import Authenticator, TaskGateway, check_headers, fault_body
from conv_tasks.ui import UiApp, UiConfig, is_ui_path

ACCESS_LOG = logging.getLogger("conv_tasks.api.access")
ERROR_LOG = logging.getLogger("conv_tasks.api")


class EdgeApp:
    """The ASGI callable `conv-tasks api serve` runs."""

    def __init__(
        self, authenticator: Authenticator, gateway: TaskGateway, ui: UiApp | None = None
    ) -> None:
        self.authenticator = authenticator
        self.gateway = gateway
        self.api = ApiApp(authenticator, gateway)
        # The web view, which answers every path under /ui (None: the edge serves none).
        self.ui = ui

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        started = time.monotonic()
        request = Request(scope, receive)
        try:
            if self.ui is not None and is_ui_path(scope.get("path", "")):
                response = await self.ui.answer(request, _check_request_headers)
            else:
                response = await self.api.answer(request)
        except Exception as exc:  # the last line of defence: never a bare 500
            ERROR_LOG.error(
                "%s %s failed: %s", request.method, scope.get("path", "")[:200], type(exc).__name__
            )
            response = json_response(
                500, fault_body(500, "InternalServerError", "The request could not be answered.")
            )
        await response(scope, receive, send)
        ACCESS_LOG.info(
            '%s "%s %s" %d %.0fms',
            (scope.get("client") or ("-",))[0],
            request.method[:16],
            scope.get("path", "")[:300].encode("unicode_escape").decode("ascii"),
            response.status_code,
            (time.monotonic() - started) * 1000,
        )

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def _check_request_headers(request: Request) -> None:
    check_headers(request.scope)


def build_app(
    authenticator: Authenticator,
    *,
    celery_app: Celery | None = None,
    threads: int = 16,
    timeout: float = 30.0,
    ui: UiConfig | None = None,
) -> EdgeApp:
    """The edge as an ASGI app: `celery_app` (default: conv_tasks' sender app) sends the
    public tasks, at most `threads` at a time, each waited for at most `timeout` seconds;
    with `ui`, the web view answers under /ui/ through the same gateway."""
    gateway = TaskGateway(celery_app, threads=threads, timeout=timeout)
    web = None if ui is None else UiApp(authenticator, gateway, ui)
    return EdgeApp(authenticator, gateway, web)
