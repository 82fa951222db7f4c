"""The web view's pages over HTTP, against real workers (noauth: the tenant in the URL):
what each page shows, and that no page, fragment or live event ever shows a hidden value."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
from ui_stacks import Stacks, hidden_marker


def page(http: httpx.Client, path: str, tenant: str, **params: Any) -> httpx.Response:
    answer = http.get(path, params={"tenant": tenant, **params})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    return answer


def sse_messages(http: httpx.Client, path: str, *, until: str, limit: float = 30, **kw: Any) -> str:
    """The stream's text up to the first message holding `until` (or its end)."""
    text = ""
    deadline = time.monotonic() + limit
    with http.stream("GET", path, **kw) as stream:
        assert stream.status_code == 200, stream.read()
        assert stream.headers["content-type"].startswith("text/event-stream")
        for chunk in stream.iter_text():
            text += chunk
            if until in text or time.monotonic() > deadline:
                break
    return text


def test_every_page_shows_the_stack_and_never_its_hidden_value(
    http: httpx.Client, stacks: Stacks
) -> None:
    marker = hidden_marker()
    stack = stacks.secret_stack("vaulted", marker, tags=["blue"])
    tenant, stack_id = stacks.tenant, stack["id"]
    seen: list[str] = []

    listed = page(http, "/ui/", tenant).text
    assert "vaulted" in listed and f"/ui/stacks/{stack_id}" in listed
    assert "CREATE COMPLETE" in listed and "blue" in listed
    seen.append(listed)

    shown = page(http, f"/ui/stacks/{stack_id}", tenant).text
    assert 'data-resource="vault"' in shown and 'data-resource="first"' in shown
    assert f"conv-tasks --tenant {tenant} stack show {stack_id}" in shown
    assert f"openstack stack show {stack_id}" in shown
    assert 'data-output="said"' in shown and "******" in shown
    assert 'class="node' in shown  # the graph, inline
    seen.append(shown)

    for path, params in [
        (f"/ui/stacks/{stack_id}", {"cleanup": "1"}),
        (f"/ui/stacks/{stack_id}/graph", {}),
        (f"/ui/stacks/{stack_id}/header", {}),
        (f"/ui/stacks/{stack_id}/history", {}),
        (f"/ui/stacks/{stack_id}/template", {}),
        (f"/ui/stacks/{stack_id}/resources/vault", {}),
        (f"/ui/stacks/{stack_id}/resources/first", {}),
    ]:
        seen.append(page(http, path, tenant, **params).text)
    drawer = http.get(
        f"/ui/stacks/{stack_id}/resources/vault",
        params={"tenant": tenant},
        headers={"HX-Request": "true"},
    )
    assert drawer.status_code == 200 and "<html" not in drawer.text
    assert 'data-property="value"' in drawer.text
    seen.append(drawer.text)
    events = sse_messages(
        http,
        f"/ui/stacks/{stack_id}/events/stream",
        until="CREATE_COMPLETE",
        params={"tenant": tenant},
    )
    assert re.search(r"^id: \d+$", events, re.M), events
    seen.append(events)
    for text in seen:
        assert marker not in text
