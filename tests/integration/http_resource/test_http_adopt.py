"""external_id on ConvTasks::HTTP::Resource against json-server, through real workers (issue
25, item 8): an object made outside the stack is adopted (observed, never created again), its
real properties recorded so that the next update converges it, and a delete removes it; an
id that names nothing fails the resource; a type that cannot observe is refused at the
request; external_id cannot be changed afterwards."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from http_support import BROKER_NOTE, HttpCluster, http_resource, stack_of

from conv_tasks.client import Client
from conv_tasks.engine.read.preview_entries import ADOPTS
from conv_tasks.errors import InvalidInput

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)

OUTPUTS = {
    "id": {"value": {"get_attr": ["web", "id"]}},
    "name": {"value": {"get_attr": ["web", "response", "name"]}},
}


def _existing(cluster: HttpCluster, collection: str, **fields: Any) -> dict[str, Any]:
    """An object made straight in json-server, as someone outside the stack would."""
    server = cluster.server
    made = {"id": f"ext-{uuid.uuid4().hex[:8]}", **fields}
    server.http.post(f"{server.base_url}/{collection}", json=made).raise_for_status()
    return made


def _adopting(object_id: str, body: dict[str, Any], **properties: Any) -> dict[str, Any]:
    return {**http_resource("adopted", body, **properties), "external_id": object_id}


def _ours(cluster: HttpCluster, method: str) -> list[dict[str, Any]]:
    """The requests of `method` conv_tasks sent (each carries its action's token)."""
    requests = cluster.server.seen()["requests"]
    return [r for r in requests if r["method"] == method and r["idempotency_key"]]


def _named(cluster: HttpCluster, collection: str, name: str) -> list[dict[str, Any]]:
    """The objects of `collection` with that name (other tests' objects stay on the server)."""
    return [o for o in cluster.server.objects(collection) if o.get("name") == name]


def _wait(client: Client, stack_id: str) -> dict[str, Any]:
    return client.wait(stack_id, timeout=60, interval=0.2)


def test_an_existing_object_is_adopted_then_converged_then_deleted(cluster: HttpCluster) -> None:
    client = cluster.client()
    existing = _existing(cluster, "adopted", name="adopted", size=1, owner="ops")
    body = {"name": "adopted", "size": 2}
    template = stack_of({"web": _adopting(existing["id"], body)}, OUTPUTS)
    [planned] = client.preview("adopting", template)["resources"]
    assert (planned["action"], planned["reason"]) == ("create", ADOPTS)
    stack_id = client.create("adopting", template)["stack_id"]
    final = _wait(client, stack_id)
    assert final["status"] == "CREATE_COMPLETE", final

    # Adopted, not created: no POST, the one object unchanged, its id the physical id.
    assert _ours(cluster, "POST") == []
    assert _named(cluster, "adopted", "adopted") == [existing]
    web = client.resource(stack_id, "web")
    assert web["physical_id"] == existing["id"]
    assert web["status"] == "CREATE_COMPLETE"
    # What observe read back is recorded: the next update diffs the template against it.
    assert web["properties"]["body"] == {"name": "adopted", "size": 1}
    outputs = {name: shown["value"] for name, shown in client.outputs(stack_id).items()}
    assert outputs == {"id": existing["id"], "name": "adopted"}
    reasons = [e["reason"] for e in client.events(stack_id)]
    assert any(f"adopted the existing object {existing['id']}" in r for r in reasons), reasons

    # The same template, updated: the real object is converged to it, in place.
    client.update(stack_id, template)
    final = _wait(client, stack_id)
    assert final["status"] == "UPDATE_COMPLETE", final
    [now] = _named(cluster, "adopted", "adopted")
    assert now == {"id": existing["id"], **body}
    [put] = _ours(cluster, "PUT")
    assert put["path"] == f"/adopted/{existing['id']}"
    assert client.resource(stack_id, "web")["physical_id"] == existing["id"]

    # Removing external_id keeps the resource as it is: nothing is sent.
    client.update(stack_id, stack_of({"web": http_resource("adopted", body)}, OUTPUTS))
    final = _wait(client, stack_id)
    assert final["status"] == "UPDATE_COMPLETE", final
    assert len(_ours(cluster, "PUT")) == 1 and _ours(cluster, "POST") == []
    assert client.resource(stack_id, "web")["physical_id"] == existing["id"]

    # Deleting the stack deletes the adopted object, as any other.
    client.delete(stack_id)
    assert _wait(client, stack_id)["status"] == "DELETE_COMPLETE"
    assert _named(cluster, "adopted", "adopted") == []


def test_an_object_that_already_matches_needs_no_update(cluster: HttpCluster) -> None:
    client = cluster.client()
    existing = _existing(cluster, "adopted", name="same", size=4)
    template = stack_of({"web": _adopting(existing["id"], {"name": "same", "size": 4})})
    stack_id = client.create("matching", template)["stack_id"]
    assert _wait(client, stack_id)["status"] == "CREATE_COMPLETE"
    client.update(stack_id, template)
    assert _wait(client, stack_id)["status"] == "UPDATE_COMPLETE"
    assert _ours(cluster, "PUT") == [] and _ours(cluster, "POST") == []
    assert _named(cluster, "adopted", "same") == [existing]


def test_an_external_id_that_names_nothing_fails_the_resource(cluster: HttpCluster) -> None:
    client = cluster.client()
    missing = f"ext-missing-{uuid.uuid4().hex[:6]}"
    template = stack_of({"web": _adopting(missing, {"name": "nothing"})})
    stack_id = client.create("missing", template, disable_rollback=True)["stack_id"]
    final = _wait(client, stack_id)
    assert final["status"] == "CREATE_FAILED", final
    web = client.resource(stack_id, "web")
    assert web["status"] == "CREATE_FAILED"
    reason = web["status_reason"]
    assert f"external_id '{missing}' names no existing ConvTasks::HTTP::Resource" in reason
    assert "\n" not in reason
    assert web["physical_id"] is None
    assert _ours(cluster, "POST") == [] and _named(cluster, "adopted", "nothing") == []
    assert cluster.token not in str(client.events(stack_id))

    # Once the object exists, an update adopts it (the failed create is tried again).
    server = cluster.server
    made = {"id": missing, "name": "nothing"}
    server.http.post(f"{server.base_url}/adopted", json=made).raise_for_status()
    client.update(stack_id, template)
    final = _wait(client, stack_id)
    assert final["status"] == "UPDATE_COMPLETE", final
    assert client.resource(stack_id, "web")["physical_id"] == missing
    assert _ours(cluster, "POST") == [] and _named(cluster, "adopted", "nothing") == [made]


def test_an_update_that_adds_a_resource_with_external_id_adopts_it(cluster: HttpCluster) -> None:
    client = cluster.client()
    stack_id = client.create("growing", stack_of({"first": http_resource("adopted", {"n": 1})}))[
        "stack_id"
    ]
    assert _wait(client, stack_id)["status"] == "CREATE_COMPLETE"
    existing = _existing(cluster, "adopted_more", name="later")
    resources = {
        "first": http_resource("adopted", {"n": 1}),
        "web": {**http_resource("adopted_more", {"name": "later"}), "external_id": existing["id"]},
    }
    planned = {r["name"]: r for r in client.preview(stack_id, stack_of(resources))["resources"]}
    assert (planned["web"]["action"], planned["web"]["reason"]) == ("create", ADOPTS)
    client.update(stack_id, stack_of(resources))
    final = _wait(client, stack_id)
    assert final["status"] == "UPDATE_COMPLETE", final
    assert client.resource(stack_id, "web")["physical_id"] == existing["id"]
    assert len(_ours(cluster, "POST")) == 1  # only `first`'s create
    assert _named(cluster, "adopted_more", "later") == [existing]

    # Another external_id on a resource that has its object: refused, nothing changes.
    other = _existing(cluster, "adopted_more", name="other")
    resources["web"]["external_id"] = other["id"]
    client.update(stack_id, stack_of(resources), disable_rollback=True)
    final = _wait(client, stack_id)
    assert final["status"] == "UPDATE_FAILED", final
    # Failed before acting: the version is unchanged, the failure is an event and the stack's.
    said = f"'{other['id']}' is not its object '{existing['id']}'"
    assert said in final["status_reason"], final
    failed = [e for e in client.events(stack_id) if e["status"] == "UPDATE_FAILED"]
    assert any(said in e["reason"] for e in failed), failed
    assert client.resource(stack_id, "web")["physical_id"] == existing["id"]
    assert _named(cluster, "adopted_more", "later") == [existing]
    assert _named(cluster, "adopted_more", "other") == [other]


def test_a_type_that_cannot_observe_is_refused_at_the_request(cluster: HttpCluster) -> None:
    client = cluster.client()
    template = stack_of({"token": {"type": "OS::Heat::RandomString", "external_id": "abc"}})
    path = "resources.token.external_id"
    with pytest.raises(InvalidInput) as caught:
        client.create("blind", template)
    assert [p.path for p in caught.value.problems] == [path]
    assert "'OS::Heat::RandomString' cannot observe" in str(caught.value)
    assert client.list() == []
    answer = client.validate(template)
    assert [e["path"] for e in answer["errors"]] == [path]
    with pytest.raises(InvalidInput) as caught:
        client.preview("blind", template)
    assert [p.path for p in caught.value.problems] == [path]
    stack_id = client.create("plain", stack_of({"token": {"type": "OS::Heat::RandomString"}}))[
        "stack_id"
    ]
    assert _wait(client, stack_id)["status"] == "CREATE_COMPLETE"
    before = client.resource(stack_id, "token")
    with pytest.raises(InvalidInput) as caught:
        client.update(stack_id, template)
    assert [p.path for p in caught.value.problems] == [path]
    assert client.resource(stack_id, "token")["physical_id"] == before["physical_id"]
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"


def test_an_adopted_object_with_deletion_policy_retain_outlives_the_stack(
    cluster: HttpCluster,
) -> None:
    client = cluster.client()
    existing = _existing(cluster, "adopted", name="kept-after")
    resource = {**_adopting(existing["id"], {"name": "kept-after"}), "deletion_policy": "Retain"}
    stack_id = client.create("retaining", stack_of({"web": resource}))["stack_id"]
    assert _wait(client, stack_id)["status"] == "CREATE_COMPLETE"
    client.delete(stack_id)
    assert _wait(client, stack_id)["status"] == "DELETE_COMPLETE"
    assert _named(cluster, "adopted", "kept-after") == [existing]
    assert _ours(cluster, "DELETE") == []
