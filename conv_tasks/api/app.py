"""Heat's API v1 as the edge answers one request: route, authenticate, read, handle.

Every request goes the same way: its address and headers are measured (414, 431), its
operation found (404, 405, 501), its caller authenticated (401, 403; another tenant's URL is
404), its body read up to the payload limit (413), then its handler runs. Whatever the
handler refuses becomes Heat's fault body. The server (conv_tasks.server) hands this every
request that is not the web view's, and keeps the access log and the last line of defence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from conv_tasks.api.handlers import HANDLERS, AnswerFault, Call, Reply
from conv_tasks.api.json_body import too_large
from conv_tasks.api.operations import route
from conv_tasks.edge import (
    ApiFault,
    Authenticator,
    Fault,
    TaskGateway,
    authorize,
    check_headers,
    fault_of,
)
from conv_tasks.limits import MAX_PAYLOAD_BYTES


def json_bytes(value: Any) -> bytes:
    # ASCII escapes: a lone surrogate a caller sent, echoed in a message, still encodes.
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": ")).encode("ascii")


def json_response(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Response:
    """A JSON answer (none when `body` is None), as the API writes every one."""
    if body is None:
        return Response(status_code=status, headers=dict(headers or {}))
    return Response(
        json_bytes(body),
        status_code=status,
        headers=dict(headers or {}),
        media_type="application/json",
    )


def _fault_response(fault: Fault) -> Response:
    return json_response(fault.status, fault.body, fault.headers)


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


class ApiApp:
    """Answers the requests of Heat's API v1 through the gateway, for the callers the
    authenticator names."""

    def __init__(self, authenticator: Authenticator, gateway: TaskGateway) -> None:
        self.authenticator = authenticator
        self.gateway = gateway

    async def answer(self, request: Request) -> Response:
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
        return json_response(reply.status, reply.body, reply.headers)

    async def _identify(self, tenant: str, request: Request) -> Any:
        headers = {k.lower(): v for k, v in request.headers.items()}
        if self.authenticator.mode == "keystone":
            return await self.gateway.run(lambda: self.authenticator.identify(tenant, headers))
        return self.authenticator.identify(tenant, headers)


_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def _base_url(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def _query(request: Request) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        found.setdefault(key, []).append(value)
    return found
