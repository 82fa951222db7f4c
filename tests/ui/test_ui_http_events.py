"""The live events stream (SSE) over HTTP against real workers: each event once, with its id;
resuming after Last-Event-ID; the end when the stack is deleted; heartbeats; the bound on
open streams, whose slots come back when clients go away."""

from __future__ import annotations

import re
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
from ui_edges import TokenEdge, signed_in
from ui_stacks import Stacks, hidden_marker

from conv_tasks.client import Client

ID = re.compile(r"^id: (\d+)$", re.M)


def read_stream(http: httpx.Client, path: str, *, until: str, limit: float = 60, **kw: Any) -> str:
    """The stream's text up to `until` (or until it ends, or `limit` seconds)."""
    text = ""
    deadline = time.monotonic() + limit
    with http.stream("GET", path, **kw) as stream:
        assert stream.status_code == 200, stream.read()
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["cache-control"] == "no-store"
        for chunk in stream.iter_text():
            text += chunk
            if until in text or time.monotonic() > deadline:
                break
    return text


def ids(text: str) -> list[int]:
    return [int(found) for found in ID.findall(text)]


def test_events_come_once_each_with_their_ids_and_resume_after_the_last_seen(
    http: httpx.Client, stacks: Stacks
) -> None:
    stack = stacks.secret_stack("streamed", hidden_marker(), resources=3)
    events = stacks.client.events(stack["id"])
    all_ids = [int(e["id"]) for e in events]
    path = f"/ui/stacks/{stack['id']}/events/stream"
    params = {"tenant": stacks.tenant}

    whole = read_stream(http, path, until=f"id: {all_ids[-1]}\n", params=params)
    assert ids(whole) == all_ids
    assert whole.count("event: event\n") == len(all_ids)
    assert whole.startswith(": events of stack")
    assert 'data: <li class="event"' in whole

    middle = all_ids[len(all_ids) // 2]
    resumed = read_stream(
        http,
        path,
        until=f"id: {all_ids[-1]}\n",
        params=params,
        headers={"Last-Event-ID": str(middle)},
    )
    assert ids(resumed) == [i for i in all_ids if i > middle]
    after = read_stream(
        http, path, until=f"id: {all_ids[-1]}\n", params={**params, "after": str(middle)}
    )
    assert ids(after) == ids(resumed)


def test_a_new_event_is_streamed_and_the_stream_ends_when_the_stack_is_deleted(
    http: httpx.Client, stacks: Stacks
) -> None:
    stack = stacks.secret_stack("doomed", hidden_marker())
    last = max(int(e["id"]) for e in stacks.client.events(stack["id"]))
    text = ""
    deadline = time.monotonic() + 90
    with http.stream(
        "GET",
        f"/ui/stacks/{stack['id']}/events/stream",
        params={"tenant": stacks.tenant, "after": str(last)},
    ) as stream:
        assert stream.status_code == 200
        deleted = False
        for chunk in stream.iter_text():
            text += chunk
            if not deleted and text.startswith(": events"):
                stacks.client.delete(stack["id"])
                deleted = True
            assert time.monotonic() < deadline, text
        # The loop ended: the server closed the stream after its end message.
    assert "DELETE COMPLETE" in text
    assert all(i > last for i in ids(text))
    assert text.rstrip().endswith("event: end\ndata: The stack was deleted.")
    # A deleted stack's stream ends at once, after what it has left to send.
    again = read_stream(
        http,
        f"/ui/stacks/{stack['id']}/events/stream",
        until="event: end",
        params={"tenant": stacks.tenant, "after": str(max(ids(text)))},
    )
    assert ids(again) == [] and "event: end" in again


def test_an_idle_stream_sends_heartbeats(token_edge: TokenEdge, workers: object) -> None:
    stacks = Stacks(Client(tenant=token_edge.tenant, timeout=60))
    stack = stacks.secret_stack(f"idle-{time.monotonic_ns()}", hidden_marker())
    last = max(int(e["id"]) for e in stacks.client.events(stack["id"]))
    with signed_in(token_edge, token_edge.token) as http:
        text = read_stream(
            http,
            f"/ui/stacks/{stack['id']}/events/stream",
            until=": keep-alive\n\n",
            limit=30,
            params={"after": str(last)},
        )
    assert ": keep-alive\n\n" in text and ids(text) == []


def _raw_stream(url: str, path: str, cookie: str) -> socket.socket:
    """A stream opened on a socket of its own, which the test can drop without a word."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nCookie: {cookie}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head
    return sock


def test_streams_are_bounded_and_a_client_that_goes_away_frees_its_slot(
    token_edge: TokenEdge, workers: object
) -> None:
    stacks = Stacks(Client(tenant=token_edge.tenant, timeout=60))
    stack = stacks.secret_stack(f"watched-{time.monotonic_ns()}", hidden_marker())
    path = f"/ui/stacks/{stack['id']}/events/stream"
    with signed_in(token_edge, token_edge.token) as http:
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        opened = [_raw_stream(token_edge.url, path, cookie) for _ in range(3)]  # the limit
        refused = http.get(path)
        assert refused.status_code == 429, refused.text
        assert refused.headers["retry-after"] == "10"
        assert "CONV_TASKS_UI_MAX_STREAMS" in refused.text
        for sock in opened:
            sock.close()
        # The edge notices each client gone and gives its slot back.
        deadline = time.monotonic() + 30
        while True:
            with http.stream("GET", path) as again:
                if again.status_code == 200:
                    break
            assert time.monotonic() < deadline, "no stream slot came back"
            time.sleep(0.2)
        for _ in range(3):  # all three are free again, one after another
            with http.stream("GET", path) as again:
                assert again.status_code == 200
