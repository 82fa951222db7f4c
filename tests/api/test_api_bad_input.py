"""Bad input at the edge: each gets a Heat-shaped 4xx that names what is wrong, and nothing
is stored."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conv_tasks.limits import MAX_PAYLOAD_BYTES

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": "x"}}},
}


def fault(answer: httpx.Response, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert body["code"] == status and body["title"] and body["explanation"]
    assert body["error"]["type"] and body["error"]["message"]
    return body


def message(answer: httpx.Response, status: int) -> str:
    return str(fault(answer, status)["error"]["message"])


def _post(http: httpx.Client, tenant: str, **kwargs: Any) -> httpx.Response:
    return http.post(f"/v1/{tenant}/stacks", **kwargs)


@pytest.mark.parametrize(
    ("body", "status", "named"),
    [
        ({"stack_name": "a", "template": TEMPLATE, "colour": "red"}, 400, "colour"),
        ({"template": TEMPLATE}, 400, "stack_name"),
        ({"stack_name": "a"}, 400, "template"),
        ({"stack_name": "a", "template_url": "http://example.com/t.yaml"}, 400, "template_url"),
        ({"stack_name": "a", "template": "file:///etc/passwd"}, 400, "URL"),
        (
            {"stack_name": "a", "template": TEMPLATE, "files": {"../../etc/passwd": "x"}},
            400,
            "../../etc/passwd",
        ),
        (
            {"stack_name": "a", "template": TEMPLATE, "files": {"file:///a/../../b": "x"}},
            400,
            "climbs out",
        ),
        (
            {"stack_name": "a", "template": TEMPLATE, "environment_files": ["env.yaml"]},
            400,
            "env.yaml",
        ),
        ({"stack_name": "a", "template": TEMPLATE, "timeout_mins": "soon"}, 400, "timeout_mins"),
        ({"stack_name": "a", "template": TEMPLATE, "timeout_mins": -1}, 400, "timeout_mins"),
        ({"stack_name": "a", "template": TEMPLATE, "disable_rollback": 3}, 400, "disable_rollback"),
        ({"stack_name": "a", "template": TEMPLATE, "parameters": [1]}, 400, "parameters"),
        ({"stack_name": "a" * 300, "template": TEMPLATE}, 400, "name"),
        ({"stack_name": "a", "template": TEMPLATE, "files_container": "c"}, 501, "files_container"),
    ],
    ids=[
        "unknown-field",
        "no-name",
        "no-template",
        "template-url",
        "template-is-a-url",
        "traversal",
        "traversal-in-url",
        "env-file-not-sent",
        "timeout-text",
        "timeout-negative",
        "rollback-number",
        "parameters-list",
        "long-name",
        "swift-container",
    ],
)
def test_a_bad_create_is_refused_naming_the_field(
    http: httpx.Client, tenant: str, body: dict[str, Any], status: int, named: str
) -> None:
    assert named in message(_post(http, tenant, json=body), status)
    assert http.get(f"/v1/{tenant}/stacks").json()["stacks"] == []


def test_a_get_file_url_not_sent_is_refused(http: httpx.Client, tenant: str) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_file": "file:///etc/passwd"}},
            }
        },
    }
    said = message(_post(http, tenant, json={"stack_name": "a", "template": template}), 400)
    assert "file:///etc/passwd" in said
    remote = {**template, "resources": {"v": {"type": "http://example.com/x.yaml"}}}
    said = message(_post(http, tenant, json={"stack_name": "b", "template": remote}), 400)
    assert "http://example.com/x.yaml" in said
    assert http.get(f"/v1/{tenant}/stacks").json()["stacks"] == []


def test_files_sent_as_heatclient_keys_them_are_used(http: httpx.Client, tenant: str) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_file": "file:///home/me/greeting.txt"}},
            }
        },
        "outputs": {"said": {"value": {"get_attr": ["v", "value"]}}},
    }
    body = {
        "stack_name": "files",
        "template": template,
        "files": {"file:///home/me/greeting.txt": "hello from a file"},
    }
    answer = _post(http, tenant, json=body)
    assert answer.status_code == 201, answer.text


@pytest.mark.parametrize(
    ("content", "headers", "status", "named"),
    [
        (b'{"stack_name": "a", ', {"Content-Type": "application/json"}, 400, "not valid JSON"),
        (b"stack_name=a", {"Content-Type": "application/x-www-form-urlencoded"}, 415, "JSON"),
        (b'{"stack_name": "a"}', {"Content-Type": "text/plain"}, 415, "text/plain"),
        (b"[1, 2]", {"Content-Type": "application/json"}, 400, "object"),
        (b'{"a": NaN}', {"Content-Type": "application/json"}, 400, "NaN"),
        (b'{"a": 1e400}', {"Content-Type": "application/json"}, 400, "finite"),
        (b"\xff\xfe", {"Content-Type": "application/json"}, 400, "UTF-8"),
        (b"[" * 5000 + b"]" * 5000, {"Content-Type": "application/json"}, 400, "MAX_PAYLOAD_DEPTH"),
    ],
    ids=["malformed", "form", "text", "not-object", "nan", "infinite", "not-utf8", "deep"],
)
def test_a_bad_body_is_refused(
    http: httpx.Client,
    tenant: str,
    content: bytes,
    headers: dict[str, str],
    status: int,
    named: str,
) -> None:
    assert named in message(_post(http, tenant, content=content, headers=headers), status)


def test_an_oversized_body_is_refused(http: httpx.Client, tenant: str) -> None:
    big = b'{"stack_name": "a", "template": "' + b"x" * MAX_PAYLOAD_BYTES + b'"}'
    said = message(
        _post(http, tenant, content=big, headers={"Content-Type": "application/json"}), 413
    )
    assert "MAX_PAYLOAD_BYTES" in said

    def chunks() -> Any:
        for _ in range(5):
            yield b" " * (MAX_PAYLOAD_BYTES // 4)

    streamed = http.post(
        f"/v1/{tenant}/stacks", content=chunks(), headers={"Content-Type": "application/json"}
    )
    fault(streamed, 413)
    assert http.get(f"/v1/{tenant}/stacks").json()["stacks"] == []


def test_headers_over_the_limits_are_refused(http: httpx.Client, tenant: str) -> None:
    said = message(http.get(f"/v1/{tenant}/stacks", headers={"X-Big": "x" * 9000}), 431)
    assert "x-big" in said.lower()
    many = {f"X-H{n}": "v" for n in range(120)}
    fault(http.get(f"/v1/{tenant}/stacks", headers=many), 431)
    fault(http.get(f"/v1/{tenant}/stacks/" + "n" * 9000), 414)


def test_the_edge_refuses_what_heat_refuses(http: httpx.Client, tenant: str) -> None:
    refused = http.post(f"/v1/{tenant}/stacks/a/b/outputs")
    assert "takes GET, not POST" in message(refused, 405)
    assert refused.headers["allow"] == "GET"
    assert "colours" in message(http.get(f"/v1/{tenant}/colours"), 404)
    fault(http.get("/v2/x/stacks"), 404)
    fault(http.get(f"/v1/{tenant}/stacks", params={"limit": "-1"}), 400)
    fault(http.get(f"/v1/{tenant}/stacks", params={"sort_dir": "up"}), 400)
    fault(http.get(f"/v1/{tenant}/stacks", params={"sort_keys": "colour"}), 400)
    fault(http.get(f"/v1/{tenant}/stacks", params={"global_tenant": "true"}), 403)
    fault(http.get(f"/v1/{tenant}/stacks", params={"marker": "nope"}), 400)
