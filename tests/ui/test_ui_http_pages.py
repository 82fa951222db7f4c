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


def test_the_page_shows_the_latest_100_events_and_follows_on_from_the_newest(
    http: httpx.Client, stacks: Stacks
) -> None:
    big = stacks.secret_stack("many", hidden_marker(), resources=50)
    every = [int(e["id"]) for e in stacks.client.events(big["id"])]
    assert len(every) > 100  # two for the stack, two for each of its 51 resources
    shown = page(http, f"/ui/stacks/{big['id']}", stacks.tenant).text
    rows = [int(i) for i in re.findall(r'data-event-id="(\d+)"', shown)]
    assert rows == list(reversed(every[-100:]))  # newest first
    assert 'id="events-older"' in shown and "The latest 100;" in shown
    # The live stream picks up after the newest event shown.
    assert re.findall(r"sse-connect=\"[^\"]*after=(\d+)", shown) == [str(every[-1])]

    small = stacks.secret_stack("few", hidden_marker())
    few = [int(e["id"]) for e in stacks.client.events(small["id"])]
    shown = page(http, f"/ui/stacks/{small['id']}", stacks.tenant).text
    assert [int(i) for i in re.findall(r'data-event-id="(\d+)"', shown)] == list(reversed(few))
    assert 'id="events-older"' not in shown


def test_a_nested_stack_is_linked_both_ways(http: httpx.Client, stacks: Stacks) -> None:
    child = (
        "heat_template_version: 2018-08-31\n"
        "resources:\n  inner:\n    type: OS::Heat::TestResource\n"
    )
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "db": {"type": "OS::Heat::Stack", "properties": {"template": child}},
            "app": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}},
        },
    }
    made = stacks.client.create("outer", template)
    done = stacks.client.wait(made["stack_id"], timeout=120)
    assert done["status"] == "CREATE_COMPLETE", done
    nested = [
        r
        for r in stacks.client.resources(done["id"], nested_depth=1)
        if r["stack_id"] != done["id"]
    ]
    child_id = nested[0]["stack_id"]
    outer = page(http, f"/ui/stacks/{done['id']}", stacks.tenant).text
    assert f"/ui/stacks/{child_id}?tenant={stacks.tenant}" in outer
    assert "(resource db)" in outer and "nested stack »" in outer
    inner = page(http, f"/ui/stacks/{child_id}", stacks.tenant).text
    assert "Nested in" in inner and f"/ui/stacks/{done['id']}?tenant={stacks.tenant}" in inner
    assert 'data-resource="inner"' in inner


def test_the_noauth_sign_in_form_takes_a_tenant(http: httpx.Client, stacks: Stacks) -> None:
    stacks.failed_stack("mine")
    assert http.get("/ui/").status_code == 303
    form = http.get("/ui/login")
    assert 'name="tenant"' in form.text and 'name="token"' not in form.text
    answer = http.post("/ui/login", data={"tenant": stacks.tenant, "next": "/ui/"})
    assert answer.status_code == 303 and answer.headers["location"] == "/ui/"
    listed = http.get("/ui/")
    assert listed.status_code == 200 and 'data-stack="mine"' in listed.text
    assert "tenant=" not in listed.text.split("<main>")[1].split('href="/ui/stacks/')[1][:60]
    refused = http.post("/ui/login", data={"tenant": ""})
    assert refused.status_code == 400 and "tenant" in refused.text


def test_pages_carry_their_security_headers_and_static_files_are_served(
    http: httpx.Client, tenant: str, workers: object
) -> None:
    listed = http.get("/ui/", params={"tenant": tenant})
    assert listed.status_code == 200, listed.text
    policy = listed.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert listed.headers["x-frame-options"] == "DENY"
    assert listed.headers["cache-control"] == "no-store"
    for name, kind in [
        ("htmx.min.js", "text/javascript"),
        ("sse.min.js", "text/javascript"),
        ("ui.js", "text/javascript"),
        ("ui.css", "text/css"),
    ]:
        served = http.get(f"/ui/static/{name}")
        assert served.status_code == 200 and served.headers["content-type"].startswith(kind)
        assert f"/ui/static/{name}" in listed.text
    assert http.get("/ui").headers["location"] == "/ui/"
