"""The web view's ASGI side: what the HTTP edge hands every request under /ui/ to.

A request is measured with the edge's own limits (414, 431), routed (404, 405), its
query read strictly (400), its session read from the cookie (a page without one redirects
to the sign-in page; a fragment or a stream gets 401), then its page runs. Every refusal is
an HTML page with its status, never Heat's JSON, and nothing escapes as a bare 500.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from conv_tasks.edge import ApiFault, Authenticator, TaskGateway
from conv_tasks.ui import drawer, history_page, list_page, stack_page, template_page
from conv_tasks.ui.config import UiConfig
from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.errors import UiError
from conv_tasks.ui.event_stream import StreamSlots, events_stream
from conv_tasks.ui.login import MAX_FORM_BYTES, Login
from conv_tasks.ui.query import Query
from conv_tasks.ui.responses import error_page, redirect
from conv_tasks.ui.routes import PREFIX, route
from conv_tasks.ui.static import static_file

ERROR_LOG = logging.getLogger("conv_tasks.ui")

PageHandler = Callable[[UiRequest], Awaitable[Response]]

PAGES: dict[str, PageHandler] = {
    "stacks": list_page.stacks,
    "stack": stack_page.stack,
    "header": stack_page.header,
    "graph": stack_page.graph,
    "resource": drawer.resource,
    "history": history_page.history,
    "template": template_page.template,
}


class UiApp:
    """The web view, answering the requests the edge hands it."""

    def __init__(
        self, authenticator: Authenticator, gateway: TaskGateway, config: UiConfig
    ) -> None:
        self.gateway = gateway
        self.config = config
        self.login = Login(authenticator, config)
        self.streams = StreamSlots(config.max_streams)

    async def answer(self, request: Request, check_headers: Callable[[Request], None]) -> Response:
        """The response to `request` (its path under /ui); `check_headers` raises the edge's
        ApiFault for an address or headers past its limits."""
        signed_in = False
        fragment = request.headers.get("hx-request") == "true"
        try:
            try:
                check_headers(request)
            except ApiFault as exc:
                raise UiError(exc.status, exc.message) from None
            page = route(request.method, request.scope.get("path", ""))
            query = Query.parse(request.scope.get("query_string", b""))
            ui = UiRequest(request, page, query, self.config, self.gateway)
            if page.name == "static":
                return static_file(page.params["file"])
            if page.name == "home_redirect":
                return redirect(PREFIX + "/")
            if page.name == "login_form":
                return self.login.form(ui)
            if page.name == "login":
                return await self.login.sign_in(ui, await _form_body(request))
            if page.name == "logout":
                return self.login.sign_out(ui)
            ui.viewer = self.login.viewer(ui)
            if ui.viewer is None:
                return self._not_signed_in(ui)
            signed_in = True
            if page.name == "events_stream":
                return await events_stream(ui, self.streams)
            return await PAGES[page.name](ui)
        except UiError as exc:
            return error_page(exc, signed_in=signed_in, fragment=fragment)
        except ApiFault as exc:  # no worker answered in time (503)
            return error_page(
                UiError(exc.status, exc.message), signed_in=signed_in, fragment=fragment
            )
        except Exception as exc:  # the last line of defence: a page, never a bare 500
            ERROR_LOG.error(
                "%s %s failed: %s",
                request.method[:16],
                request.scope.get("path", "")[:200].encode("unicode_escape").decode("ascii"),
                type(exc).__name__,
            )
            problem = UiError(500, "The page could not be shown; the edge's log says why.")
            return error_page(problem, signed_in=signed_in, fragment=fragment)

    def _not_signed_in(self, ui: UiRequest) -> Response:
        if ui.htmx or ui.page.name == "events_stream" or ui.request.method.upper() != "GET":
            raise UiError(401, "Sign in to see this: your session has ended or is not valid.")
        scope = ui.request.scope
        here = scope.get("path", "")
        if scope.get("query_string"):
            here += "?" + scope["query_string"].decode("utf-8", "replace")
        return redirect(f"{PREFIX}/login?next={quote(here, safe='')}")


async def _form_body(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_FORM_BYTES:
        raise UiError(413, f"A sign-in form is at most {MAX_FORM_BYTES} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            raise UiError(413, f"A sign-in form is at most {MAX_FORM_BYTES} bytes.")
        chunks.append(chunk)
    body = b"".join(chunks)
    kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if body and kind != "application/x-www-form-urlencoded":
        raise UiError(400, "The sign-in form must be sent as application/x-www-form-urlencoded.")
    return body
