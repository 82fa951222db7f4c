"""Bad requests to the web view: each gets a clear 4xx HTML page, changes nothing, and none
gets a 5xx (noauth edge, real workers)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
from ui_stacks import Stacks, hidden_marker

MISSING = "00000000-0000-4000-8000-000000000000"


def _is_page(answer: httpx.Response, status: int, words: str) -> None:
    assert answer.status_code == status, (answer.status_code, answer.text)
    assert answer.headers["content-type"].startswith("text/html"), answer.headers
    assert f'data-status="{status}"' in answer.text
    assert words in answer.text, answer.text


def _raw(url: str, request: bytes) -> bytes:
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_bad_requests_get_clear_4xx_pages_and_change_nothing(
    http: httpx.Client, noauth_edge: str, stacks: Stacks
) -> None:
    stack = stacks.secret_stack("steady", hidden_marker())
    before = stacks.client.get(stack["id"])
    events_before = stacks.client.events(stack["id"])
    tenant = {"tenant": stacks.tenant}
    base = f"/ui/stacks/{stack['id']}"

    _is_page(http.get(f"/ui/stacks/{MISSING}", params=tenant), 404, "not found")
    _is_page(http.get(f"/ui/stacks/{MISSING}/history", params=tenant), 404, "not found")
    _is_page(http.get(f"{base}/resources/nothing", params=tenant), 404, "has no resource")
    _is_page(http.get("/ui/nothing", params=tenant), 404, "has no page")
    _is_page(http.get(f"{base}/nothing", params=tenant), 404, "has no page")
    _is_page(http.get("/ui/static/..%2F..%2Fetc%2Fpasswd"), 404, "has no page")
    _is_page(http.get("/ui/static/secret.txt"), 404, "no static file")
    wrong_method = http.delete(base, params=tenant)
    _is_page(wrong_method, 405, "takes GET, HEAD")
    assert wrong_method.headers["allow"] == "GET, HEAD"
    _is_page(http.get("/ui/", params={**tenant, "name": "x" * 2000}), 400, "longer than")
    _is_page(http.get("/ui/", params={**tenant, "name": "x" * 300}), 400, "longer than 255")
    _is_page(http.get("/ui/", params={**tenant, "status": "SLEEPING"}), 400, "takes")
    _is_page(http.get("/ui/", params={**tenant, "limit": "0"}), 400, "whole number")
    _is_page(http.get("/ui/", params={**tenant, "marker": MISSING}), 400, "names no stack")
    _is_page(http.get(base, params={**tenant, "rpage": "x"}), 400, "rpage")
    _is_page(http.get(base, params={**tenant, "cleanup": "perhaps"}), 400, "cleanup")
    _is_page(http.get(f"{base}/history", params={**tenant, "before": "-1"}), 400, "before")
    _is_page(http.get("/ui/", params={"tenant": "a\x01b"}), 400, "tenant")
    _is_page(http.get(f"{base}?tenant={stacks.tenant}&name=%FF%FE"), 400, "not UTF-8")
    _is_page(http.get(f"{base}?tenant={stacks.tenant}&%C3%28=1"), 400, "not UTF-8")
    _is_page(
        http.get(f"{base}/events/stream", params=tenant, headers={"Last-Event-ID": "soon"}),
        400,
        "Last-Event-ID",
    )
    _is_page(http.get("/ui/", params={**tenant, "name": "x" * 9000}), 414, "longer than")
    _is_page(http.get("/ui/", params=tenant, headers={"X-Big": "y" * 9000}), 431, "x-big")
    _is_page(
        http.post("/ui/login", content=b"tenant=a", headers={"Content-Type": "text/plain"}),
        400,
        "x-www-form-urlencoded",
    )
    _is_page(
        http.post(
            "/ui/login",
            content=b"tenant=" + b"a" * 9000,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        ),
        413,
        "at most",
    )
    raw = _raw(
        noauth_edge,
        b"GET /ui/?tenant=" + stacks.tenant.encode() + b"&name=\xff\xfe HTTP/1.1\r\n"
        b"Host: x\r\nConnection: close\r\n\r\n",
    )
    # Raw bytes past ASCII in the request line: uvicorn refuses them before the edge sees them.
    assert raw.startswith(b"HTTP/1.1 400"), raw[:300]

    # Nothing was changed by any of it.
    assert stacks.client.get(stack["id"]) == before
    assert stacks.client.events(stack["id"]) == events_before


def test_odd_addresses_and_values_never_get_a_5xx(http: httpx.Client, stacks: Stacks) -> None:
    stack = stacks.secret_stack("poked", hidden_marker())
    weird = ["", "%00", "%C0%AF", "..%2F..", "a" * 300, "\u202e", "💥", "*", "null", "-1"]
    for value in weird:
        for path in (
            f"/ui/stacks/{value}",
            f"/ui/stacks/{stack['id']}/resources/{value}",
            f"/ui/stacks/{value}/events/stream",
            "/ui/",
        ):
            for params in ({"tenant": stacks.tenant, "name": value}, {"tenant": value}, {}):
                answer = http.get(path, params=params)
                assert answer.status_code < 500, (path, params, answer.text)
                if answer.status_code >= 400:
                    assert answer.headers["content-type"].startswith("text/html")
