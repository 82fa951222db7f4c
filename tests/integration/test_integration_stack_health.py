"""Substitution (seed 004), stack check and mark-unhealthy, through real workers."""

from __future__ import annotations

from integration_support import resource_rows, sandbox_objects, template, test_resource

from conv_tasks.client import Client

OLD = "OS::Heat::TestResourceOld"
NEW = "OS::Heat::TestResource"


def heads(stack_id: str) -> dict[str, object]:
    """Each resource's newest version."""
    found: dict[str, object] = {}
    for row in resource_rows(stack_id):
        found[row.name] = row  # rows come oldest first
    return found


def test_a_change_to_the_substitute_type_converges_in_place(client: Client) -> None:
    before = template({"r": {"type": OLD, "properties": {"value": "one"}}})
    stack_id = client.create("subst", before)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [created] = sandbox_objects(stack_id)
    after = template({"r": {"type": NEW, "properties": {"value": "two"}}})

    preview = client.preview(stack_id, after)
    [entry] = preview["resources"]
    assert (entry["name"], entry["action"]) == ("r", "update"), entry

    client.update(stack_id, after)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    [live] = sandbox_objects(stack_id, include_deleted=True)
    assert live.id == created.id  # the same object, never deleted, created once
    assert (live.deleted, live.create_calls) == (False, 1)
    assert live.properties == {"value": "two"}  # the substitute's update ran
    [resource] = client.resources(stack_id)
    assert resource["type"] == NEW
    assert resource["physical_id"] == created.id


def test_a_change_to_an_unrelated_type_still_replaces(client: Client) -> None:
    stack_id = client.create("unrel", template({"r": test_resource("one")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    after = template({"r": {"type": OLD, "properties": {"value": "one"}}})
    [entry] = client.preview(stack_id, after)["resources"]
    assert entry["action"] == "replace"
