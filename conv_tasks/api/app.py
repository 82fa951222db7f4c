"""The ASGI application of the HTTP edge: limits, authentication, dispatch, faults, logs.

Every request goes the same way: its address and headers are measured (414, 431), its
operation found (404, 405, 501), its caller authenticated (401, 403; another tenant's URL is
404), its body read up to the payload limit (413), then its handler runs. Whatever goes
wrong becomes Heat's fault body; nothing escapes as a bare 500. The access log names the
method, the path and the status: never a header, a query value or a body.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from celery import Celery
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from conv_tasks.api.auth import Authenticator, authorize
from conv_tasks.api.faults import ApiFault, Fault, fault_body, fault_of
from conv_tasks.api.gateway import TaskGateway
from conv_tasks.api.handlers import HANDLERS, AnswerFault, Call, Reply
from conv_tasks.api.json_body import too_large
from conv_tasks.api.operations import route
from conv_tasks.limits import MAX_PAYLOAD_BYTES

if TYPE_CHECKING:
    from conv_tasks.ui import UiApp, UiConfig

ACCESS_LOG = logging.getLogger("conv_tasks.api.access")
ERROR_LOG = logging.getLogger("conv_tasks.api")

# Header limits: past these a request is refused with 431 before anything reads it.
MAX_HEADERS = 100
MAX_HEADER_BYTES = 8 * 1024
MAX_HEADERS_BYTES = 32 * 1024
MAX_URL_BYTES = 8 * 1024


def json_bytes(value: Any) -> bytes:
    # ASCII escapes: a lone surrogate a caller sent, echoed in a message, still encodes.
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": ")).encode("ascii")


def _response(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Response:
    if body is None:
        return Response(status_code=status, headers=dict(headers or {}))
    return Response(
        json_bytes(body),
        status_code=status,
        headers=dict(headers or {}),
        media_type="application/json",
    )


def _fault_response(fault: Fault) -> Response:
    return _response(fault.status, fault.body, fault.headers)


def check_headers(scope: Scope) -> None:
    """414 for an address, 431 for headers past the limits."""
    raw_path = scope.get("raw_path") or scope.get("path", "").encode()
    if len(raw_path) + len(scope.get("query_string", b"")) > MAX_URL_BYTES:
        raise ApiFault(
            414,
            "RequestLimitExceeded",
            f"The address is longer than {MAX_URL_BYTES} bytes.",
        )
    headers = scope.get("headers") or []
    if len(headers) > MAX_HEADERS:
        raise ApiFault(431, "RequestLimitExceeded", f"More than {MAX_HEADERS} headers.")
    total = 0
    for name, value in headers:
        size = len(name) + len(value)
        total += size
        if size > MAX_HEADER_BYTES:
            shown = name.decode("latin-1")[:60]
            raise ApiFault(
                431,
                "RequestLimitExceeded",
                f"The header {shown} is longer than {MAX_HEADER_BYTES} bytes.",
            )
    if total > MAX_HEADERS_BYTES:
        raise ApiFault(
            431, "RequestLimitExceeded", f"The headers are longer than {MAX_HEADERS_BYTES} bytes."
        )


async def read_body(request: Request) -> bytes:
    """The body, refused with 413 as soon as it passes MAX_PAYLOAD_BYTES."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_PAYLOAD_BYTES:
        raise too_large(int(declared))
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_PAYLOAD_BYTES:
            raise too_large(0)
        chunks.append(chunk)
    return b"".join(chunks)


def _base_url(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


class EdgeApp:
    """The ASGI callable `conv-tasks api serve` runs."""

    def __init__(
        self, authenticator: Authenticator, gateway: TaskGateway, ui: UiApp | None = None
    ) -> None:
        self.authenticator = authenticator
        self.gateway = gateway
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
            if self.ui is not None and _is_ui_path(scope.get("path", "")):
                response = await self.ui.answer(request, _check_request_headers)
            else:
                response = await self._answer(request)
        except Exception as exc:  # the last line of defence: never a bare 500
            ERROR_LOG.error(
                "%s %s failed: %s", request.method, scope.get("path", "")[:200], type(exc).__name__
            )
            response = _response(
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

    async def _answer(self, request: Request) -> Response:
        try:
            check_headers(request.scope)
            operation = route(request.method, request.scope.get("path", ""))
            if operation.tenant:
                identity = await self._identify(operation.tenant, request)
                authorize(identity, operation.tenant, request.method.upper())
            body = await read_body(request) if request.method.upper() in _WITH_BODY else b""
            call = Call(
                operation,
                self.gateway,
                _base_url(request),
                request.scope.get("path", ""),
                _query(request),
                body,
                request.headers.get("content-type"),
                auth_token=None if operation.tenant else request.headers.get("x-auth-token"),
            )
            reply: Reply = await HANDLERS[operation.name](call)
        except ApiFault as exc:
            return _fault_response(fault_of(exc))
        except AnswerFault as exc:
            return _fault_response(exc.fault)
        return _response(reply.status, reply.body, reply.headers)

    async def _identify(self, tenant: str, request: Request) -> Any:
        headers = {k.lower(): v for k, v in request.headers.items()}
        if self.authenticator.mode == "keystone":
            return await self.gateway.run(lambda: self.authenticator.identify(tenant, headers))
        return self.authenticator.identify(tenant, headers)


_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def _is_ui_path(path: str) -> bool:
    return path == "/ui" or path.startswith("/ui/")


def _check_request_headers(request: Request) -> None:
    check_headers(request.scope)


def _query(request: Request) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        found.setdefault(key, []).append(value)
    return found


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
    web = None
    if ui is not None:
        from conv_tasks.ui import UiApp

        web = UiApp(authenticator, gateway, ui)
    return EdgeApp(authenticator, gateway, web)
