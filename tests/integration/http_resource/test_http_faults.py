"""What ConvTasks::HTTP::Resource does when json-server (behind the test middleware) answers
badly: throttled and unavailable answers are retried, a refusal or a non-JSON answer fails the
resource in one line, bad URLs are refused when the template is loaded, and the connection's
bearer token, a real secret, never appears in anything conv_tasks shows or logs."""

from __future__ import annotations

import json

import pytest
from http_support import BROKER_NOTE, HttpCluster, http_resource, stack_of

from conv_tasks.errors import InvalidInput

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)


def _named(cluster: HttpCluster, collection: str, name: str) -> list[dict[str, object]]:
    return [o for o in cluster.server.objects(collection) if o.get("name") == name]


def test_throttled_and_unavailable_answers_are_asked_again_until_done(
    cluster: HttpCluster,
) -> None:
    cluster.server.control(
        fail=[
            {"status": 429, "count": 2, "method": "POST", "retry_after": 1},
            {"status": 503, "count": 1, "method": "POST"},
            {"status": 502, "count": 1, "method": "PUT"},
            {"status": 504, "count": 1, "method": "DELETE"},
        ]
    )
    client = cluster.client()
    stack_id = client.create("retried", stack_of({"web": http_resource("items", {"name": "r"})}))[
        "stack_id"
    ]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    [made] = _named(cluster, "items", "r")
    client.update(stack_id, stack_of({"web": http_resource("items", {"name": "r", "v": 2})}))
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "UPDATE_COMPLETE"
    assert _named(cluster, "items", "r") == [{"name": "r", "v": 2, "id": made["id"]}]
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "DELETE_COMPLETE"
    assert _named(cluster, "items", "r") == []
    seen = cluster.server.seen()
    assert seen["refused"] == 5 and seen["pending_failures"] == 0
    methods = [r["method"] for r in seen["requests"] if r["idempotency_key"]]
    assert methods == ["POST"] * 4 + ["PUT"] * 2 + ["DELETE"] * 2


def test_a_refusal_fails_the_resource_with_the_services_message(cluster: HttpCluster) -> None:
    cluster.server.control(
        fail=[{"status": 422, "method": "POST", "message": "name must be\nlowercase"}]
    )
    client = cluster.client()
    resources = {"web": http_resource("items", {"name": "Refused"})}
    stack_id = client.create("refused", stack_of(resources), disable_rollback=True)["stack_id"]
    final = client.wait(stack_id, timeout=60, interval=0.2)
    assert final["status"] == "CREATE_FAILED", final
    web = client.resource(stack_id, "web")
    assert web["status_reason"] == (
        f"Resource web: POST {cluster.server.base_url}/items answered 422 Unprocessable "
        "Entity: name must be lowercase"
    )
    assert _named(cluster, "items", "Refused") == []


def test_an_answer_that_is_not_json_fails_in_one_line_and_the_delete_cleans_up(
    cluster: HttpCluster,
) -> None:
    cluster.server.control(not_json=1)
    client = cluster.client()
    resources = {"web": http_resource("items", {"name": "html"})}
    stack_id = client.create("html", stack_of(resources), disable_rollback=True)["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_FAILED"
    reason = client.resource(stack_id, "web")["status_reason"]
    assert reason == (
        f"Resource web: POST {cluster.server.base_url}/items answered 201 Created with a body "
        "that is not JSON (text/html, 39 bytes)."
    )
    assert len(_named(cluster, "items", "html")) == 1  # json-server made it all the same
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "DELETE_COMPLETE"
    assert _named(cluster, "items", "html") == []


@pytest.mark.parametrize(
    ("properties", "path", "said"),
    [
        ({"url": "file:///etc/passwd"}, "url", "scheme 'file' is not allowed"),
        ({"url": "gopher://127.0.0.1/items"}, "url", "scheme 'gopher' is not allowed"),
        (
            {"url": "http://127.0.0.1:9/items", "connection": "rest"},
            "url",
            "must be a path under the connection's base_url",
        ),
        ({"url": "items"}, "url", "must be an absolute http or https URL"),
        ({"url": "items", "connection": "rest", "item_url": "file:///{id}"}, "item_url", "file"),
        ({"url": "items", "connection": "nope"}, "connection", "names connection 'nope'"),
    ],
)
def test_a_bad_url_or_connection_is_refused_when_the_template_is_loaded(
    cluster: HttpCluster, properties: dict[str, str], path: str, said: str
) -> None:
    client = cluster.client()
    template = stack_of({"web": {"type": "ConvTasks::HTTP::Resource", "properties": properties}})
    with pytest.raises(InvalidInput) as caught:
        client.create("bad", template)
    [problem] = caught.value.problems
    assert problem.path == f"resources.web.properties.{path}"
    assert said in problem.message
    assert client.list() == []
    assert cluster.server.seen()["requests"] == []


def test_the_bearer_token_is_sent_and_never_shown(cluster: HttpCluster) -> None:
    token = cluster.token
    client = cluster.client()
    # A refused create whose message quotes the Authorization header it got.
    cluster.server.control(fail=[{"status": 400, "method": "POST", "echo": True}])
    refused = client.create(
        "refused",
        stack_of({"web": http_resource("echoes", {"name": "refused"})}),
        disable_rollback=True,
    )["stack_id"]
    assert client.wait(refused, timeout=60, interval=0.2)["status"] == "CREATE_FAILED"
    reason = client.resource(refused, "web")["status_reason"]
    assert "answered 400 Bad Request: refused Bearer ******" in reason
    # A create whose answer quotes it, and an update put off by a message quoting it.
    cluster.server.control(echo_posts=1, fail=[{"status": 503, "method": "PUT", "echo": True}])
    outputs = {"answer": {"value": {"get_attr": ["web", "response"]}}}
    echoed = client.create(
        "echoed", stack_of({"web": http_resource("echoes", {"name": "echoed"})}, outputs)
    )["stack_id"]
    assert client.wait(echoed, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    answer = client.outputs(echoed)["answer"]["value"]
    assert answer["seen"] == "Bearer ******", answer
    changed = stack_of({"web": http_resource("echoes", {"name": "echoed", "v": 2})}, outputs)
    client.update(echoed, changed)
    assert client.wait(echoed, timeout=60, interval=0.2)["status"] == "UPDATE_COMPLETE"
    seen = cluster.server.seen()
    assert seen["unauthorized"] == 0 and seen["refused"] == 2 and seen["echo_posts"] == 0
    shown = json.dumps(
        [
            [
                client.get(stack_id),
                client.outputs(stack_id),
                client.events(stack_id),
                client.resources(stack_id, all_versions=True),
                client.resource(stack_id, "web"),
                client.template(stack_id),
            ]
            for stack_id in (refused, echoed)
        ]
    )
    assert "Bearer ******" in shown
    assert token not in shown
    logs = cluster.logs()
    assert "step put off" in logs and "refused Bearer ******" in logs
    assert token not in logs
