"""The view's static files (htmx, its SSE extension, its own script and style sheet),
served by name.

Only the files in static/ that are listed here are served, whatever the path asks for, so
no path leads anywhere else on disk.
"""

from __future__ import annotations

import functools
from importlib import resources

from starlette.responses import Response

from conv_tasks.ui.errors import not_found
from conv_tasks.ui.responses import SECURITY_HEADERS

_TYPES = {
    "htmx.min.js": "text/javascript; charset=utf-8",
    "sse.min.js": "text/javascript; charset=utf-8",
    "ui.js": "text/javascript; charset=utf-8",
    "ui.css": "text/css; charset=utf-8",
}


@functools.cache
def _read(name: str) -> bytes:
    return (resources.files("conv_tasks.ui") / "static" / name).read_bytes()


def static_file(name: str) -> Response:
    kind = _TYPES.get(name)
    if kind is None:
        raise not_found(f"The web view has no static file {name[:100]!r}.")
    return Response(
        _read(name),
        media_type=kind,
        headers={**SECURITY_HEADERS, "Cache-Control": "public, max-age=3600"},
    )
