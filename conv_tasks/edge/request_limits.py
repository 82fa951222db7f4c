"""The limits of a request's address and headers, as the edge measures them before anything
reads the request: 414 for an address, 431 for headers, with Heat's fault body."""

from __future__ import annotations

from starlette.types import Scope

from conv_tasks.edge.faults import ApiFault

# Header limits: past these a request is refused with 431 before anything reads it.
MAX_HEADERS = 100
MAX_HEADER_BYTES = 8 * 1024
MAX_HEADERS_BYTES = 32 * 1024
MAX_URL_BYTES = 8 * 1024


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
