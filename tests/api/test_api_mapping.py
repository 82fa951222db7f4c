"""The edge's pure parts, without services: routing, Heat bodies to task kwargs, task answers
to Heat shapes, list queries, faults, JSON bodies and the auth modes' start-up checks."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.api import heat_input, heat_views, listing
from conv_tasks.api.json_body import depth_of, parse_json, parse_object
from conv_tasks.api.operations import route
from conv_tasks.edge import ApiFault, fault_of_answer
from conv_tasks.edge.auth import (
    ApiConfigError,
    Identity,
    StaticTokens,
    authenticator,
    authorize,
    parse_tokens,
    token_hash,
)
from conv_tasks.limits import MAX_PAYLOAD_DEPTH
from conv_tasks.server import edge_app
from conv_tasks.settings import Settings

ID = "0b5f1c1e-1111-4a4a-9a9a-000000000001"


@pytest.mark.parametrize(
    ("method", "path", "name", "params"),
    [
        ("GET", "/v1/t/stacks", "stack_list", {}),
        ("POST", "/v1/t/stacks", "stack_create", {}),
        ("GET", "/v1/t/stacks/web", "stack_lookup", {"stack_name": "web", "subpath": ""}),
        ("DELETE", "/v1/t/stacks/web", "stack_lookup", {"stack_name": "web", "subpath": ""}),
        (
            "GET",
            "/v1/t/stacks/web/resources/db",
            "stack_lookup",
            {"stack_name": "web", "subpath": "resources/db"},
        ),
        ("GET", f"/v1/t/stacks/web/{ID}", "stack_show", {"stack_name": "web", "stack_id": ID}),
        ("PATCH", f"/v1/t/stacks/web/{ID}", "stack_patch", {"stack_name": "web", "stack_id": ID}),
        (
            "DELETE",
            f"/v1/t/stacks/web/{ID}/",
            "stack_delete",
            {"stack_name": "web", "stack_id": ID},
        ),
        ("GET", f"/v1/t/stacks/web/{ID}/events", "event_list", {}),
        ("GET", f"/v1/t/stacks/web/{ID}/resources/db/events/7", "event_show", {"event_id": "7"}),
        ("POST", f"/v1/t/stacks/web/{ID}/resources/db/signal", "resource_signal", {}),
        ("PATCH", f"/v1/t/stacks/web/{ID}/resources/db", "resource_mark_unhealthy", {}),
        ("GET", f"/v1/t/stacks/web/{ID}/outputs/said", "output_show", {"output_key": "said"}),
        ("PUT", f"/v1/t/stacks/web/{ID}/preview", "stack_preview_update", {"patch": "False"}),
        ("POST", "/v1/t/validate", "template_validate", {}),
        ("GET", "/v1/t/resource_types/OS::Heat::Value", "resource_type_show", {}),
        ("GET", "/healthcheck", "health", {}),
        ("GET", "/", "versions", {}),
    ],
)
def test_requests_route_to_their_operation(
    method: str, path: str, name: str, params: dict[str, str]
) -> None:
    operation = route(method, path)
    assert operation.name == name
    assert params.items() <= operation.params.items()


@pytest.mark.parametrize(
    ("method", "path", "status", "named"),
    [
        ("GET", f"/v1/t/stacks/web/{ID}/snapshots", 501, "snapshots"),
        ("DELETE", f"/v1/t/stacks/web/{ID}/abandon", 501, "abandon"),
        ("GET", "/v1/t/software_configs", 501, "software configs"),
        ("GET", "/v1/t/stacks/detail", 501, "detail"),
        ("GET", f"/v1/t/stacks/web/{ID}/resources/db/metadata", 501, "metadata"),
        ("GET", "/v1/t/colours", 404, "colours"),
        ("GET", "/v2/t/stacks", 404, "/v1/"),
        ("GET", "/v1//stacks", 404, "/v1/"),
        ("POST", f"/v1/t/stacks/web/{ID}/outputs", 405, "GET"),
        ("DELETE", "/v1/t/stacks", 405, "GET, POST"),
    ],
)
def test_other_requests_get_their_fault(method: str, path: str, status: int, named: str) -> None:
    with pytest.raises(ApiFault) as refused:
        route(method, path)
    assert refused.value.status == status
    assert named in refused.value.message


def test_a_create_body_becomes_the_tasks_kwargs() -> None:
    body = {
        "stack_name": "web",
        "template": {"heat_template_version": "2018-08-31"},
        "parameters": {"n": "1"},
        "files": {"file:///a/b.yaml": "x: 1", "file:///a/env.yaml": "parameters: {n: 2}"},
        "environment": {"parameters": {"n": 3}},
        "environment_files": ["file:///a/env.yaml"],
        "disable_rollback": True,
        "timeout_mins": "5",
        "tags": "a,b",
    }
    kwargs = heat_input.create_request(body).kwargs
    assert kwargs == {
        "name": "web",
        "template": {"heat_template_version": "2018-08-31"},
        "parameters": {"n": "1"},
        # With environment_files, Heat uses those files, not the merged environment.
        "environment": ["parameters: {n: 2}"],
        "files": body["files"],
        "disable_rollback": True,
        "timeout_mins": 5,
        "tags": ["a", "b"],
    }


def test_patch_keeps_the_stack_and_put_needs_a_template() -> None:
    patched = heat_input.update_request({"parameters": {"n": 2}}, patch=True).kwargs
    assert patched == {"parameters": {"n": 2}, "existing_parameters": True}
    with pytest.raises(ApiFault, match="template is required"):
        heat_input.update_request({"parameters": {"n": 2}}, patch=False)
    with pytest.raises(ApiFault, match="clear_parameters"):
        heat_input.update_request({"clear_parameters": ["n"]}, patch=True)


@pytest.mark.parametrize(
    ("name", "climbs"),
    [
        ("a/b.yaml", False),
        ("file:///home/me/x.yaml", False),
        ("../x", True),
        ("file:///home/../../etc/passwd", True),
        ("a\\..\\b", True),
        ("a..b", False),
    ],
)
def test_file_names_that_climb_out_are_found(name: str, climbs: bool) -> None:
    assert heat_input.climbs_out(name) is climbs


@pytest.mark.parametrize(
    ("body", "task", "kwargs"),
    [
        ({"check": None}, "conv_tasks.stack.check", {}),
        ({"suspend": None}, "conv_tasks.stack.suspend", {}),
        ({"resume": None}, "conv_tasks.stack.resume", {}),
        ({"cancel_update": None}, "conv_tasks.stack.cancel_update", {"rollback": True}),
        ({"cancel_without_rollback": None}, "conv_tasks.stack.cancel_update", {"rollback": False}),
    ],
)
def test_actions_name_their_task(body: dict[str, Any], task: str, kwargs: dict[str, Any]) -> None:
    assert heat_input.action_request(body) == (task, kwargs)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({}, 400),
        ({"check": None, "cancel_update": None}, 400),
        ({"dance": 1}, 400),
        ({"snapshot": None}, 400),
    ],
)
def test_bad_actions_are_refused(body: dict[str, Any], status: int) -> None:
    with pytest.raises(ApiFault) as refused:
        heat_input.action_request(body)
    assert refused.value.status == status


def test_a_stack_shows_with_heats_keys() -> None:
    stack = {
        "id": ID,
        "name": "web",
        "status": "CREATE_COMPLETE",
        "status_reason": "Stack CREATE completed successfully",
        "created_at": "2026-11-26T11:00:00.123456+00:00",
        "updated_at": None,
        "deleted_at": None,
        "tags": [],
        "parent_stack_id": None,
        "description": "d",
        "parameters": {"p": "v"},
        "outputs": {"o": {"value": 1, "description": "one"}},
        "disable_rollback": False,
        "timeout_mins": None,
    }
    shown = heat_views.stack_detail("http://h:8004", "t", stack)
    assert shown["stack_name"] == "web" and shown["stack_status"] == "CREATE_COMPLETE"
    assert shown["creation_time"] == "2026-11-26T11:00:00Z"
    assert shown["links"] == [{"href": f"http://h:8004/v1/t/stacks/web/{ID}", "rel": "self"}]
    assert shown["outputs"] == [{"output_key": "o", "description": "one", "output_value": 1}]
    assert shown["parameters"]["OS::stack_id"] == ID and shown["parameters"]["p"] == "v"
    assert shown["tags"] is None


def test_the_stacks_own_event_names_the_stack() -> None:
    event = {
        "id": 9,
        "resource_name": "",
        "physical_id": None,
        "status": "CREATE_COMPLETE",
        "reason": "done",
        "time": "2026-11-26T11:00:00+00:00",
    }
    shown = heat_views.event_item("http://h", "t", "web", ID, {**event, "resource_name": "web"})
    assert shown["id"] == "9" and shown["resource_name"] == "web"
    assert shown["logical_resource_id"] == "web" and shown["physical_resource_id"] == ""
    assert shown["resource_status"] == "CREATE_COMPLETE" and shown["event_time"].endswith("Z")
    assert [link["rel"] for link in shown["links"]] == ["self", "resource", "stack"]


def test_resources_know_what_requires_them() -> None:
    resources = [
        {"name": "a", "type": "T", "status": "CREATE_COMPLETE", "requires": []},
        {"name": "b", "type": "T", "status": "CREATE_COMPLETE", "requires": ["a"]},
    ]
    shown = heat_views.resource_list("http://h", "t", "web", ID, resources)["resources"]
    assert [r["required_by"] for r in shown] == [["b"], []]


def test_a_preview_groups_resources_as_heat_does() -> None:
    preview = {
        "resources": [
            {"name": "a", "type": "T", "action": "create"},
            {"name": "b", "type": "T", "action": "replace"},
        ]
    }
    changes = heat_views.resource_changes("t", "web", ID, preview)["resource_changes"]
    assert [r["resource_name"] for r in changes["added"]] == ["a"]
    assert [r["resource_name"] for r in changes["replaced"]] == ["b"]
    assert changes["deleted"] == changes["updated"] == changes["unchanged"] == []


def test_show_nested_adds_nested_resources_naming_their_parent_resource() -> None:
    member = {"name": "a", "type": "T", "action": "update"}
    group = {
        "name": "0",
        "type": "Box",
        "action": "update",
        "nested_stack": {"id": "c2", "name": "web-grp-0"},
        "nested": [member],
    }
    preview = {
        "resources": [
            {
                "name": "grp",
                "type": "OS::Heat::ResourceGroup",
                "action": "update",
                "nested_stack": {"id": "c1", "name": "web-grp"},
                "nested": [group, {"name": "1", "type": "Box", "action": "delete"}],
            }
        ]
    }

    plain = heat_views.resource_changes("t", "web", ID, preview)["resource_changes"]
    assert [r["resource_name"] for r in plain["updated"]] == ["grp"]
    assert "parent_resource" not in plain["updated"][0]

    deep = heat_views.resource_changes("t", "web", ID, preview, show_nested=True)
    updated = deep["resource_changes"]["updated"]
    assert [(r["resource_name"], r.get("parent_resource")) for r in updated] == [
        ("grp", None),
        ("0", "grp"),
        ("a", "0"),
    ]
    assert updated[2]["resource_identity"]["stack_id"] == "c2"
    assert updated[2]["resource_identity"]["stack_name"] == "web-grp-0"
    [deleted] = deep["resource_changes"]["deleted"]
    assert deleted["parent_resource"] == "grp"
    assert deleted["resource_identity"]["stack_id"] == "c1"


def _stacks() -> list[dict[str, Any]]:
    return [
        {"id": f"id{n}", "name": f"s{n}", "status": status, "created_at": f"2026-01-0{n}"}
        for n, status in enumerate(["CREATE_COMPLETE", "UPDATE_FAILED", "CREATE_FAILED"], 1)
    ]


def test_stack_lists_filter_sort_and_page() -> None:
    def pick(**query: str) -> list[str]:
        wanted = listing.stack_list_query({k: [v] for k, v in query.items()})
        return [s["name"] for s in listing.pick_stacks(_stacks(), wanted)[0]]

    assert pick() == ["s3", "s2", "s1"]  # newest first, as Heat lists them
    assert pick(sort_dir="asc") == ["s1", "s2", "s3"]
    assert pick(status="FAILED") == ["s3", "s2"]
    assert pick(action="CREATE") == ["s3", "s1"]
    assert pick(limit="1", marker="id3") == ["s2"]
    assert pick(sort_keys="stack_name", sort_dir="asc", limit="2") == ["s1", "s2"]
    with pytest.raises(ApiFault, match="marker"):
        pick(marker="nope")


def test_a_full_page_links_to_the_next() -> None:
    items = [{"id": "a"}, {"id": "b"}]
    query = {"limit": ["2"], "marker": ["z"]}
    (link,) = listing.next_link("http://h/v1/t/stacks", query, items, 2)
    assert link == {"rel": "next", "href": "http://h/v1/t/stacks?limit=2&marker=b"}
    assert listing.next_link("http://h/v1/t/stacks", query, items[:1], 2) == []


def test_events_filter_and_page() -> None:
    events = [
        {"id": n, "resource_name": name, "status": status}
        for n, name, status in [
            (1, "a", "CREATE_IN_PROGRESS"),
            (2, "a", "CREATE_COMPLETE"),
            (3, "web", "CREATE_COMPLETE"),
        ]
    ]

    def pick(resource: str | None = None, **query: str) -> list[int]:
        wanted = listing.event_query({k: [v] for k, v in query.items()}, resource)
        return [e["id"] for e in listing.pick_events(events, wanted)]

    assert pick() == [1, 2, 3]
    assert pick(sort_dir="desc", limit="2") == [3, 2]
    assert pick(marker="1") == [2, 3]
    assert pick(resource_status="COMPLETE") == [2, 3]
    assert pick("a") == [1, 2]
    with pytest.raises(ApiFault, match="nested_depth"):
        pick(nested_depth="deep")


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("not_found", 404),
        ("conflict", 409),
        ("lost_race", 409),
        ("invalid_template", 400),
        ("invalid_payload", 400),
        ("invalid_something_new", 400),
        ("not_authorized", 403),
        ("unavailable", 503),
    ],
)
def test_task_refusals_map_to_statuses(code: str, status: int) -> None:
    answer = {
        "ok": False,
        "error": code,
        "message": "m",
        "problems": [{"path": "p", "message": "bad"}],
    }
    fault = fault_of_answer(answer)
    assert fault.status == status and fault.body["code"] == status
    assert fault.body["error"]["problems"] == [{"path": "p", "message": "bad"}]
    assert fault.body["error"]["traceback"] is None


def test_json_bodies_are_measured_before_parsing() -> None:
    assert parse_object(b"", required=False) == {}
    assert parse_object(b' {"a": [1, 2.5]} ') == {"a": [1, 2.5]}
    deep = b"[" * (MAX_PAYLOAD_DEPTH + 1) + b"]" * (MAX_PAYLOAD_DEPTH + 1)
    with pytest.raises(ApiFault, match="MAX_PAYLOAD_DEPTH"):
        parse_json(deep)
    with pytest.raises(ApiFault, match="MAX_PAYLOAD_DEPTH"):
        parse_json(b"[" * 100_000)
    assert depth_of({"a": [{"b": 1}]}) == 3
    # Brackets inside strings are text, not nesting.
    assert parse_json(b'"' + b"[" * 500 + b'"') == "[" * 500
    with pytest.raises(ApiFault, match="needs a JSON object"):
        parse_object(b"", required=True)


def test_token_files_map_hashes_to_tenants() -> None:
    lines = ["# comment", "", f"{token_hash('w')} acme", f"sha256:{token_hash('r')} acme reader"]
    found = parse_tokens(lines, "tokens")
    assert found[token_hash("w")] == Identity("acme")
    assert found[token_hash("r")] == Identity("acme", reader=True)
    tokens = StaticTokens(found)
    assert tokens.identify("acme", {"x-auth-token": "r"}).reader
    for headers in ({}, {"x-auth-token": "nope"}):
        with pytest.raises(ApiFault) as refused:
            tokens.identify("acme", headers)
        assert refused.value.status == 401
    with pytest.raises(ApiConfigError, match="line 1"):
        parse_tokens(["not-a-hash acme"], "tokens")
    with pytest.raises(ApiConfigError, match="no token"):
        parse_tokens(["# nothing"], "tokens")


def test_another_tenant_is_not_found_and_a_reader_may_only_read() -> None:
    with pytest.raises(ApiFault) as refused:
        authorize(Identity("acme"), "other", "GET")
    assert refused.value.status == 404
    with pytest.raises(ApiFault) as refused:
        authorize(Identity("acme", reader=True), "acme", "POST")
    assert refused.value.status == 403
    authorize(Identity("acme", reader=True), "acme", "GET")


def test_noauth_serves_only_on_loopback() -> None:
    for host in ("127.0.0.1", "::1", "localhost"):
        assert authenticator("noauth", "", "", host).mode == "noauth"
    for host in ("0.0.0.0", "10.0.0.5", "::"):
        with pytest.raises(ApiConfigError, match="loopback"):
            authenticator("noauth", "", "", host)


def test_the_other_modes_say_what_they_need_at_start(tmp_path: Any) -> None:
    with pytest.raises(ApiConfigError, match="CONV_TASKS_API_TOKENS_FILE"):
        edge_app("0.0.0.0", Settings(api_auth="tokens"))
    with pytest.raises(ApiConfigError, match="cannot be read"):
        edge_app("0.0.0.0", Settings(api_auth="tokens", api_tokens_file=str(tmp_path / "no")))
    # keystonemiddleware is an extra that `make setup` does not install.
    with pytest.raises(ApiConfigError, match=r"conv_tasks\[keystone\]"):
        edge_app("0.0.0.0", Settings(api_auth="keystone"))
    with pytest.raises(Exception, match="CONV_TASKS_API_AUTH"):
        Settings.from_env({"CONV_TASKS_API_AUTH": "open"})
