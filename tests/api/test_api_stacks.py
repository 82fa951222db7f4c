"""The edge against real workers, as heatclient drives it: create, show, list, events,
resources, outputs, PATCH, preview, check, cancel, delete; lookups; tenancy; faults."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "two values",
    "parameters": {
        "greeting": {"type": "string", "default": "hello"},
        "secret": {"type": "string", "default": "s3cr3t-value", "hidden": True},
    },
    "resources": {
        "first": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "greeting"}}},
        "second": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"get_attr": ["first", "value"]}},
        },
    },
    "outputs": {
        "said": {"value": {"get_attr": ["second", "value"]}, "description": "what was said"}
    },
}


def wait_done(http: httpx.Client, stack_url: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        shown = http.get(stack_url)
        assert shown.status_code == 200, shown.text
        stack: dict[str, Any] = shown.json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, stack
        time.sleep(0.3)


def create(http: httpx.Client, tenant: str, name: str, **extra: Any) -> str:
    body = {"stack_name": name, "template": TEMPLATE, "parameters": {"greeting": "hi"}, **extra}
    answer = http.post(f"/v1/{tenant}/stacks", json=body)
    assert answer.status_code == 201, answer.text
    stack = answer.json()["stack"]
    assert answer.headers["location"] == stack["links"][0]["href"]
    assert stack["links"][0]["href"].endswith(f"/v1/{tenant}/stacks/{name}/{stack['id']}")
    return str(stack["links"][0]["href"])


def test_a_stack_lives_its_whole_life_through_the_edge(http: httpx.Client, tenant: str) -> None:
    url = create(http, tenant, "web", tags="a,b")
    stack = wait_done(http, url)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack
    assert stack["stack_name"] == "web"
    assert stack["stack_status_reason"] is not None
    assert stack["creation_time"].endswith("Z")
    assert stack["parameters"]["greeting"] == "hi"
    assert stack["parameters"]["secret"] == "******"
    assert stack["parameters"]["OS::stack_name"] == "web"
    assert stack["outputs"] == [
        {"output_key": "said", "description": "what was said", "output_value": "hi"}
    ]
    assert stack["tags"] == ["a", "b"]
    assert "s3cr3t-value" not in http.get(url).text

    listed = http.get(f"/v1/{tenant}/stacks").json()["stacks"]
    assert [s["stack_name"] for s in listed] == ["web"]
    assert listed[0]["id"] == stack["id"] and listed[0]["links"][0]["href"] == url
    assert http.get(f"/v1/{tenant}/stacks", params={"tags": "zzz"}).json()["stacks"] == []
    assert len(http.get(f"/v1/{tenant}/stacks", params={"status": "COMPLETE"}).json()["stacks"])

    events = http.get(f"{url}/events").json()["events"]
    names = [e["resource_name"] for e in events]
    assert {"first", "second", "web"} <= set(names)
    last = events[-1]
    assert last["resource_name"] == "web" and last["resource_status"] == "CREATE_COMPLETE"
    # heatclient's --wait knows the stack's own event by its name and its id as physical id.
    assert last["physical_resource_id"] == stack["id"]
    assert last["links"][2]["href"] == url
    for key in ("event_time", "physical_resource_id", "logical_resource_id", "id", "links"):
        assert key in last
    marked = http.get(f"{url}/events", params={"marker": events[0]["id"], "limit": 2}).json()
    assert [e["id"] for e in marked["events"]] == [e["id"] for e in events[1:3]]
    backwards = http.get(f"{url}/events", params={"sort_dir": "desc"}).json()["events"]
    assert [e["id"] for e in backwards] == [e["id"] for e in reversed(events)]
    done = http.get(f"{url}/events", params={"resource_status": "COMPLETE"}).json()["events"]
    assert done and all(e["resource_status"].endswith("COMPLETE") for e in done)
    one = http.get(f"{url}/resources/first/events").json()["events"]
    assert one and {e["resource_name"] for e in one} == {"first"}
    shown = http.get(f"{url}/resources/first/events/{one[0]['id']}").json()["event"]
    assert shown["id"] == one[0]["id"]

    resources = http.get(f"{url}/resources").json()["resources"]
    assert [r["resource_name"] for r in resources] == ["first", "second"]
    assert resources[0]["required_by"] == ["second"]
    assert resources[0]["resource_status"] == "CREATE_COMPLETE"
    res = http.get(f"{url}/resources/second").json()["resource"]
    assert res["resource_type"] == "OS::Heat::Value" and res["attributes"]["value"] == "hi"

    outputs = http.get(f"{url}/outputs").json()["outputs"]
    assert outputs == [{"output_key": "said", "description": "what was said"}]
    said = http.get(f"{url}/outputs/said").json()["output"]
    assert said["output_value"] == "hi"
    assert http.get(f"{url}/outputs/nope").status_code == 404

    assert http.get(f"{url}/template").json()["resources"].keys() == {"first", "second"}
    assert isinstance(http.get(f"{url}/environment").json(), dict)
    assert http.get(f"{url}/files").json() == {}

    preview = http.patch(f"{url}/preview", json={"parameters": {"greeting": "yo"}})
    assert preview.status_code == 200, preview.text
    changes = preview.json()["resource_changes"]
    assert [r["resource_name"] for r in changes["updated"]] == ["first"]
    assert wait_done(http, url)["parameters"]["greeting"] == "hi"  # a preview changes nothing

    patched = http.patch(url, json={"parameters": {"greeting": "yo"}})
    assert patched.status_code == 202, patched.text
    stack = wait_done(http, url)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack
    assert stack["outputs"][0]["output_value"] == "yo"

    checked = http.post(f"{url}/actions", json={"check": None})
    assert checked.status_code == 200, checked.text
    assert wait_done(http, url)["stack_status"] == "CHECK_COMPLETE"

    unhealthy = {"mark_unhealthy": True, "resource_status_reason": "disk lost"}
    assert http.patch(f"{url}/resources/first", json=unhealthy).status_code == 200
    first = http.get(f"{url}/resources/first").json()["resource"]
    assert first["resource_status"] == "CHECK_FAILED"

    # Nothing to cancel: the engine refuses, and the edge says so as Heat would (409).
    cancelled = http.post(f"{url}/actions", json={"cancel_update": None})
    assert cancelled.status_code in (400, 409), cancelled.text
    assert cancelled.json()["error"]["message"]

    deleted = http.delete(url)
    assert deleted.status_code == 204, deleted.text
    # As in Heat: by its whole address (or its id) a deleted stack still shows, and its
    # events still list; by its name it is gone.
    assert wait_done(http, url)["stack_status"] == "DELETE_COMPLETE"
    by_id = http.get(f"/v1/{tenant}/stacks/{stack['id']}/events", follow_redirects=True)
    assert by_id.json()["events"][-1]["resource_status"] == "DELETE_COMPLETE"
    assert http.get(f"/v1/{tenant}/stacks/web").status_code == 404
    assert http.get(f"/v1/{tenant}/stacks").json()["stacks"] == []


def test_a_running_update_is_cancelled(http: httpx.Client, tenant: str) -> None:
    slow = {
        "heat_template_version": "2018-08-31",
        "resources": {"slow": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}},
    }
    answer = http.post(f"/v1/{tenant}/stacks", json={"stack_name": "s", "template": slow})
    url = answer.json()["stack"]["links"][0]["href"]
    assert wait_done(http, url)["stack_status"] == "CREATE_COMPLETE"
    slow["resources"]["slow"]["properties"] = {"value": "b", "action_wait_secs": {"update": 30}}
    assert http.put(url, json={"template": slow}).status_code == 202
    cancelled = http.post(f"{url}/actions", json={"cancel_without_rollback": None})
    assert cancelled.status_code == 200, cancelled.text
    stack = wait_done(http, url)
    assert stack["stack_status"] in ("UPDATE_FAILED", "UPDATE_COMPLETE"), stack


def test_a_name_redirects_to_the_stack(http: httpx.Client, tenant: str) -> None:
    url = create(http, tenant, "named")
    for method in ("GET", "PUT", "PATCH", "DELETE"):
        answer = http.request(method, f"/v1/{tenant}/stacks/named")
        assert answer.status_code == 302, (method, answer.text)
        assert answer.headers["location"] == url
    answer = http.get(f"/v1/{tenant}/stacks/named/events", params={"limit": "1"})
    assert answer.status_code == 302
    assert answer.headers["location"] == f"{url}/events?limit=1"
    assert http.get(f"/v1/{tenant}/stacks/nothing").status_code == 404
    shown = http.get(f"/v1/{tenant}/stacks/named", follow_redirects=True)
    assert shown.json()["stack"]["stack_name"] == "named"


def test_another_tenants_stack_is_not_found(http: httpx.Client, tenant: str) -> None:
    url = create(http, tenant, "mine")
    other = url.replace(f"/v1/{tenant}/", "/v1/someone-else/")
    answer = http.get(other)
    assert answer.status_code == 404
    fault = answer.json()
    assert fault["code"] == 404 and fault["title"] == "Not Found"
    assert fault["error"]["type"] and fault["error"]["message"]
    assert http.delete(other).status_code == 404
    assert http.get(url).status_code == 200


def test_refusals_map_to_heat_faults(http: httpx.Client, tenant: str) -> None:
    create(http, tenant, "dup")
    again = http.post(f"/v1/{tenant}/stacks", json={"stack_name": "dup", "template": TEMPLATE})
    assert again.status_code == 409, again.text
    broken = http.post(
        f"/v1/{tenant}/stacks", json={"stack_name": "bad", "template": {"resources": {}}}
    )
    assert broken.status_code == 400
    assert "heat_template_version" in broken.json()["error"]["message"]
    assert http.get(f"/v1/{tenant}/stacks").json()["stacks"][0]["stack_name"] == "dup"


def test_what_is_not_implemented_answers_501_naming_it(http: httpx.Client, tenant: str) -> None:
    url = create(http, tenant, "snap")
    answer = http.get(f"{url}/snapshots")
    assert answer.status_code == 501
    fault = answer.json()
    assert fault["code"] == 501 and "snapshots" in fault["error"]["message"]
    assert http.get(f"/v1/{tenant}/software_configs").status_code == 501
    assert http.get(f"/v1/{tenant}/build_info").status_code == 501


def test_suspend_and_resume_are_stack_actions(http: httpx.Client, tenant: str) -> None:
    url = create(http, tenant, "sleepy")
    assert wait_done(http, url)["stack_status"] == "CREATE_COMPLETE"
    suspended = http.post(f"{url}/actions", json={"suspend": None})
    assert suspended.status_code == 200, suspended.text
    assert wait_done(http, url)["stack_status"] == "SUSPEND_COMPLETE"
    resources = http.get(f"{url}/resources").json()["resources"]
    assert {r["resource_status"] for r in resources} == {"SUSPEND_COMPLETE"}
    again = http.post(f"{url}/actions", json={"suspend": None})
    assert again.status_code == 409, again.text
    assert "SUSPEND_COMPLETE" in again.json()["error"]["message"]
    refused = http.patch(url, json={"parameters": {"greeting": "yo"}})
    assert refused.status_code == 409 and "resume it first" in refused.text
    resumed = http.post(f"{url}/actions", json={"resume": None})
    assert resumed.status_code == 200, resumed.text
    stack = wait_done(http, url)
    assert stack["stack_status"] == "RESUME_COMPLETE"
    twice = http.post(f"{url}/actions", json={"resume": None})
    assert twice.status_code == 409 and "only a suspended stack" in twice.text
    assert wait_done(http, url)["stack_status"] == "RESUME_COMPLETE"
    states = http.get(f"/v1/{tenant}/stacks", params={"status": "RESUME_COMPLETE"}).json()
    assert [s["stack_name"] for s in states["stacks"]] == ["sleepy"]


def test_templates_are_validated_and_types_listed(http: httpx.Client, tenant: str) -> None:
    valid = http.post(f"/v1/{tenant}/validate", json={"template": TEMPLATE})
    assert valid.status_code == 200, valid.text
    body = valid.json()
    assert body["Description"] == "two values"
    assert body["Parameters"]["secret"]["NoEcho"] == "true"
    assert body["Parameters"]["secret"]["Default"] == "******"
    broken = {**TEMPLATE, "resources": {"x": {"type": "No::Such::Type"}}}
    invalid = http.post(f"/v1/{tenant}/validate", json={"template": broken})
    assert invalid.status_code == 400 and "No::Such::Type" in invalid.text
    types = http.get(f"/v1/{tenant}/resource_types").json()["resource_types"]
    assert "OS::Heat::Value" in types
    shown = http.get(f"/v1/{tenant}/resource_types/OS::Heat::RandomString").json()
    assert shown["resource_type"] == "OS::Heat::RandomString" and "length" in shown["properties"]
    assert http.get(f"/v1/{tenant}/resource_types/No::Such").status_code == 404
    skeleton = http.get(f"/v1/{tenant}/resource_types/OS::Heat::Value/template").json()
    assert skeleton["resources"]


def test_tokens_mode_authenticates_and_authorizes(token_edge_url: str, tokens: Any) -> None:
    READER_TOKEN, TOKEN_TENANT, WRITER_TOKEN = tokens.reader, tokens.tenant, tokens.writer
    with httpx.Client(base_url=token_edge_url, timeout=60) as http:
        stacks = f"/v1/{TOKEN_TENANT}/stacks"
        missing = http.get(stacks)
        assert missing.status_code == 401 and missing.json()["code"] == 401
        assert http.get(stacks, headers={"X-Auth-Token": "wrong"}).status_code == 401
        writer = {"X-Auth-Token": WRITER_TOKEN}
        reader = {"X-Auth-Token": READER_TOKEN}
        assert http.get(stacks, headers=writer).status_code == 200
        assert http.get("/v1/other-tenant/stacks", headers=writer).status_code == 404
        body = {"stack_name": "t", "template": TEMPLATE}
        refused = http.post(stacks, json=body, headers=reader)
        assert refused.status_code == 403 and refused.json()["title"] == "Forbidden"
        assert http.get(stacks, headers=reader).json()["stacks"] == []
        assert http.post(stacks, json=body, headers=writer).status_code == 201
        assert [s["stack_name"] for s in http.get(stacks, headers=reader).json()["stacks"]] == ["t"]


def test_the_access_log_shows_no_token_or_value(
    token_edge_url: str, http: httpx.Client, tenant: str, edge_log: Any
) -> None:
    secret = "hidden-" + tenant
    create(http, tenant, "logged", parameters={"greeting": "hi", "secret": secret})
    http.get(f"/v1/{tenant}/stacks", params={"name": secret}, headers={"X-Auth-Token": secret})
    text = edge_log.read_text()
    assert f"/v1/{tenant}/stacks" in text
    assert secret not in text


def test_requests_in_parallel_each_get_their_own_answer(edge_url: str, tenant: str) -> None:
    # Each request waits on a Celery answer in the edge's thread pool: answers must not cross.
    with httpx.Client(base_url=edge_url, timeout=60) as http:
        urls = {name: create(http, tenant, name) for name in ("p1", "p2", "p3")}

    def show(name: str) -> str:
        with httpx.Client(timeout=60) as http:
            answer = http.get(urls[name])
            assert answer.status_code == 200, answer.text
            return str(answer.json()["stack"]["stack_name"])

    names = [name for _ in range(8) for name in urls]
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        assert list(pool.map(show, names)) == names


def test_noauth_refuses_to_serve_beyond_loopback() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from conv_tasks.cli.main import main; main()",
            "api",
            "serve",
            "--host",
            "0.0.0.0",
        ],
        env={**os.environ, "CONV_TASKS_API_AUTH": "noauth"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "loopback" in done.stderr and "0.0.0.0" in done.stderr


def test_an_update_preview_with_show_nested_lists_a_group_s_members(
    http: httpx.Client, tenant: str
) -> None:
    def group(count: int, value: str) -> dict[str, Any]:
        member = {"type": "OS::Heat::Value", "properties": {"value": value}}
        return {
            "heat_template_version": "2018-08-31",
            "resources": {
                "grp": {
                    "type": "OS::Heat::ResourceGroup",
                    "properties": {"count": count, "resource_def": member},
                }
            },
        }

    answer = http.post(
        f"/v1/{tenant}/stacks", json={"stack_name": "grouped", "template": group(2, "a")}
    )
    assert answer.status_code == 201, answer.text
    url = answer.json()["stack"]["links"][0]["href"]
    assert wait_done(http, url)["stack_status"] == "CREATE_COMPLETE"

    body = {"template": group(3, "b")}
    plain = http.put(f"{url}/preview", json=body).json()["resource_changes"]
    assert [r["resource_name"] for r in plain["updated"]] == ["grp"]
    assert plain["added"] == []

    deep = http.put(f"{url}/preview", params={"show_nested": "True"}, json=body)  # heatclient
    assert deep.status_code == 200, deep.text
    changes = deep.json()["resource_changes"]
    assert [(r["resource_name"], r.get("parent_resource")) for r in changes["updated"]] == [
        ("grp", None),
        ("0", "grp"),
        ("1", "grp"),
    ]
    [added] = changes["added"]
    assert added["resource_name"] == "2" and added["parent_resource"] == "grp"
    assert added["resource_identity"]["stack_id"] != url.rsplit("/", 1)[-1]
    bad = http.put(f"{url}/preview", params={"show_nested": "maybe"}, json=body)
    assert bad.status_code == 400 and "show_nested" in bad.text
    assert wait_done(http, url)["stack_status"] == "CREATE_COMPLETE"  # nothing changed
