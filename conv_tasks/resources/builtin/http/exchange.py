"""One HTTP request of a ConvTasks::HTTP::Resource step, with httpx: sent, its answer read
(at most MAX_RESPONSE_BYTES), within a timeout.

A request that gets no answer in time, or whose connection fails, is Transient: the engine
asks again later, and the action's token (its Idempotency-Key, and the id it chose) makes
the repeat safe. A request that cannot be sent as written (a bad URL or header) is Fatal.
Never raises httpx's own errors, and never says a header's value.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import httpx

from conv_tasks.resources.builtin.http.answers import MAX_RESPONSE_BYTES, Answer
from conv_tasks.sdk import Fatal, Transient


def send(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    resource: str,
    headers: Mapping[str, str],
    timeout: float,
    body: Any = None,
) -> Answer:
    """Send `method url` (with the JSON `body` unless it is None) through `client`, and
    read its answer."""
    shown = _shown(client, url)
    # httpx's timeout holds each phase (connecting, each read): the whole is held here.
    deadline = time.monotonic() + timeout
    try:
        with client.stream(
            method,
            url,
            json=body,
            headers=dict(headers),
            timeout=httpx.Timeout(timeout),
        ) as response:
            content = _read(response, resource, f"{method} {shown}", deadline)
            return Answer(
                method=method,
                url=shown,
                status=response.status_code,
                reason=response.reason_phrase,
                content_type=response.headers.get("content-type", ""),
                content=content,
                retry_after=response.headers.get("retry-after"),
                location=response.headers.get("location"),
            )
    except httpx.TimeoutException:
        raise Transient(
            f"Resource {resource}: {method} {shown} got no answer within {timeout:g} s."
        ) from None
    except (httpx.UnsupportedProtocol, httpx.InvalidURL, httpx.LocalProtocolError) as exc:
        raise Fatal(
            f"Resource {resource}: {method} {shown} cannot be sent: {type(exc).__name__}."
        ) from None
    except httpx.TransportError as exc:
        raise Transient(
            f"Resource {resource}: {method} {shown} failed: {type(exc).__name__} ({exc})."
        ) from None


def _read(response: httpx.Response, resource: str, request: str, deadline: float) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise Fatal(_too_large(resource, request, response.status_code))
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise Fatal(_too_large(resource, request, response.status_code))
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise Transient(
                f"Resource {resource}: {request} answered {response.status_code} too slowly: "
                "its body was not read within the timeout."
            )
    return b"".join(chunks)


def _too_large(resource: str, request: str, status: int) -> str:
    return (
        f"Resource {resource}: {request} answered {status} with more than "
        f"{MAX_RESPONSE_BYTES // 1024} KiB, more than it keeps."
    )


def _shown(client: httpx.Client, url: str) -> str:
    """The URL a request goes to, as messages show it (the client's base_url joined)."""
    try:
        return str(client.build_request("GET", url).url)
    except (httpx.InvalidURL, httpx.UnsupportedProtocol, TypeError, ValueError):
        return url
