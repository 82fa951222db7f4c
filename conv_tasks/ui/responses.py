"""The web view's responses: HTML with its security headers, redirects, error pages."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import Response

from conv_tasks.ui.errors import UiError
from conv_tasks.ui.rendering import render

# Scripts and styles from /ui/static/ only: no inline script runs, even one a value could
# smuggle in; no other site may frame the pages.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
        "object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
PAGE_HEADERS = {**SECURITY_HEADERS, "Cache-Control": "no-store", "Vary": "Cookie, HX-Request"}


def html(body: str, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    return Response(
        body.encode("utf-8"),
        status_code=status,
        headers={**PAGE_HEADERS, **dict(headers or {})},
        media_type="text/html; charset=utf-8",
    )


def redirect(location: str, headers: Mapping[str, str] | None = None) -> Response:
    """303 See Other: after a POST too, the browser GETs `location`."""
    return Response(
        status_code=303, headers={**PAGE_HEADERS, **dict(headers or {}), "Location": location}
    )


def error_page(error: UiError, *, signed_in: bool = False, fragment: bool = False) -> Response:
    """The page a refusal gets: its title, its sentence, and the way back."""
    body = render(
        "error_fragment.html" if fragment else "error.html",
        status=error.status,
        title=error.title,
        message=error.message,
        signed_in=signed_in,
    )
    return html(body, error.status, error.headers)
