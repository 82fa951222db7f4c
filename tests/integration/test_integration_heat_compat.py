"""Behaviours Heat's own templates rely on, found by the compatibility sweep (README
"Compatibility with Heat's templates"), on real workers: a stack holding a test resource
that failed is deleted, a Value holds a map, Heat's TestResource knobs are accepted."""

from __future__ import annotations

from integration_support import template, test_resource

from conv_tasks.client import Client


def test_a_stack_whose_test_resource_failed_is_deleted(client: Client) -> None:
    stack_id = client.create("failing", template({"t": test_resource("a")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    client.update(stack_id, template({"t": test_resource("b", fail=True)}), disable_rollback=True)
    assert client.wait(stack_id)["status"] == "UPDATE_FAILED"
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"


def test_a_value_without_a_type_holds_a_map_and_heats_knobs_load(client: Client) -> None:
    resources = {
        "settings": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"size": 2, "zones": ["a", "b"]}},
        },
        "polled": test_resource("p", client_name="nova", entity_name="servers"),
    }
    outputs = {
        "zone": {"value": {"get_attr": ["settings", "value", "zones", 1]}},
        "all": {"value": {"get_attr": ["settings", "value"]}},
    }
    stack_id = client.create("held", template(resources, outputs=outputs))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    shown = client.outputs(stack_id)
    assert shown["zone"]["value"] == "b"
    assert shown["all"]["value"] == {"size": 2, "zones": ["a", "b"]}
