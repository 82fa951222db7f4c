"""ConvTasks::HTTP::Resource against json-server, through real workers and a connection with a
bearer token: create, update in place (PUT and PATCH), replace, delete, check and preview."""

from __future__ import annotations

from typing import Any

import pytest
from http_support import BROKER_NOTE, HttpCluster, http_resource, stack_of

from conv_tasks.client import Client
from conv_tasks.resources import token_physical_id

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)

OUTPUTS = {
    "id": {"value": {"get_attr": ["web", "id"]}},
    "status": {"value": {"get_attr": ["web", "status"]}},
    "name": {"value": {"get_attr": ["web", "response", "name"]}},
}


def _values(client: Client, stack_id: str) -> dict[str, Any]:
    return {name: shown["value"] for name, shown in client.outputs(stack_id).items()}


def test_create_makes_the_object_with_the_body_and_the_id_chosen_from_the_token(
    cluster: HttpCluster,
) -> None:
    client = cluster.client()
    body = {"name": "web", "size": 2, "tags": ["a", "b"], "meta": {"team": "ops"}}
    stack_id = client.create("web", stack_of({"web": http_resource("items", body)}, OUTPUTS))[
        "stack_id"
    ]
    final = client.wait(stack_id, timeout=60, interval=0.2)
    assert final["status"] == "CREATE_COMPLETE", final
    [made] = cluster.server.objects("items")
    assert {k: v for k, v in made.items() if k != "id"} == body
    web = client.resource(stack_id, "web")
    assert web["physical_id"] == made["id"]
    posts = [r for r in cluster.server.seen()["requests"] if r["method"] == "POST"]
    [post] = posts
    # The id was chosen from the action's token, which the POST carried as its Idempotency-Key.
    assert post["idempotency_key"].endswith(":CREATE")
    assert made["id"] == token_physical_id(post["idempotency_key"])
    assert cluster.server.seen()["unauthorized"] == 0
    assert _values(client, stack_id) == {"id": made["id"], "status": 201, "name": "web"}


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_an_update_of_the_body_converges_in_place(cluster: HttpCluster, method: str) -> None:
    client = cluster.client()
    first = {"name": f"in-place-{method}", "size": 1, "note": "first"}
    stack_id = client.create(
        "inplace",
        stack_of({"web": http_resource("things", first, update_method=method)}, OUTPUTS),
    )["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    [made] = [o for o in cluster.server.objects("things") if o["name"] == first["name"]]
    second = {"name": first["name"], "size": 3}
    client.update(
        stack_id, stack_of({"web": http_resource("things", second, update_method=method)}, OUTPUTS)
    )
    final = client.wait(stack_id, timeout=60, interval=0.2)
    assert final["status"] == "UPDATE_COMPLETE", final
    [now] = [o for o in cluster.server.objects("things") if o["name"] == first["name"]]
    assert now["id"] == made["id"]  # the same object, changed
    assert client.resource(stack_id, "web")["physical_id"] == made["id"]
    if method == "PUT":
        assert now == {"id": made["id"], **second}  # the whole body replaced
    else:
        assert now == {"id": made["id"], **second, "note": "first"}  # only what was sent
    assert _values(client, stack_id)["status"] == 200
    updates = [r for r in cluster.server.seen()["requests"] if r["method"] == method]
    assert [r["path"] for r in updates] == [f"/things/{made['id']}"]
    assert updates[0]["idempotency_key"].endswith(":UPDATE")


def test_a_change_of_url_replaces_the_object(cluster: HttpCluster) -> None:
    client = cluster.client()
    body = {"name": "moving"}
    stack_id = client.create("moving", stack_of({"web": http_resource("items", body)}))["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    [old] = [o for o in cluster.server.objects("items") if o["name"] == "moving"]
    client.update(stack_id, stack_of({"web": http_resource("things", body)}))
    final = client.wait(stack_id, timeout=60, interval=0.2)
    assert final["status"] == "UPDATE_COMPLETE", final
    assert [o for o in cluster.server.objects("items") if o["name"] == "moving"] == []
    [new] = [o for o in cluster.server.objects("things") if o["name"] == "moving"]
    assert new["id"] != old["id"]
    assert client.resource(stack_id, "web")["physical_id"] == new["id"]


def test_delete_removes_the_object_and_one_already_gone_is_fine(cluster: HttpCluster) -> None:
    client = cluster.client()
    resources = {
        "kept": http_resource("items", {"name": "to-delete"}),
        "lost": http_resource("items", {"name": "gone-before"}),
    }
    stack_id = client.create("deleting", stack_of(resources))["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    lost_id = client.resource(stack_id, "lost")["physical_id"]
    cluster.server.http.delete(f"{cluster.server.base_url}/items/{lost_id}").raise_for_status()
    client.delete(stack_id)
    final = client.wait(stack_id, timeout=60, interval=0.2)
    assert final["status"] == "DELETE_COMPLETE", final
    names = {o["name"] for o in cluster.server.objects("items")}
    assert not names & {"to-delete", "gone-before"}
    requests = cluster.server.seen()["requests"]
    deletes = [r for r in requests if r["method"] == "DELETE" and r["idempotency_key"]]
    assert len(deletes) == 2  # the one already gone got its 404, and that was fine


def test_check_and_preview_see_what_the_server_holds(cluster: HttpCluster) -> None:
    client = cluster.client()
    resources = {
        "same": http_resource("items", {"name": "checked", "size": 1}),
        "drifted": http_resource("items", {"name": "drifts", "size": 1}),
        "missing": http_resource("items", {"name": "vanishes"}),
    }
    template = stack_of(resources)
    stack_id = client.create("checked", template)["stack_id"]
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CREATE_COMPLETE"
    client.check(stack_id)
    assert client.wait(stack_id, timeout=60, interval=0.2)["status"] == "CHECK_COMPLETE"
    server = cluster.server
    drifted = client.resource(stack_id, "drifted")["physical_id"]
    server.http.patch(f"{server.base_url}/items/{drifted}", json={"size": 9}).raise_for_status()
    missing = client.resource(stack_id, "missing")["physical_id"]
    server.http.delete(f"{server.base_url}/items/{missing}").raise_for_status()
    reality = {r["name"]: r["reality"] for r in client.preview(stack_id, template)["resources"]}
    assert reality == {
        "same": None,
        "drifted": {"exists": True, "differs": ["body"]},
        "missing": {"exists": False},
    }
    client.check(stack_id)
    final = client.wait(stack_id, timeout=60, interval=0.2)
    assert final["status"] == "CHECK_FAILED", final
    statuses = {r["name"]: r["status"] for r in client.resources(stack_id)}
    assert statuses == {
        "same": "CHECK_COMPLETE",
        "drifted": "CHECK_FAILED",
        "missing": "CHECK_FAILED",
    }
