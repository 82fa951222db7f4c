"""Behaviours Heat's own templates rely on, found by the compatibility sweep (docs/templates.md,
"Compatibility with Heat's templates"), on real workers: a stack holding a test resource
that failed is deleted, a Value holds a map, Heat's TestResource knobs are accepted."""

from __future__ import annotations

from integration_support import template, test_resource

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput


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


PARENT = """
heat_template_version: 2015-04-30
resources:
  inner:
    type: inner.yaml
"""
INNER_V1 = """
heat_template_version: 2015-04-30
parameters:
  site: {type: string, default: here}
resources:
  held: {type: OS::Heat::TestResource, properties: {value: {get_param: site}}}
"""
TOP_V1 = """
heat_template_version: 2015-04-30
parameters:
  site: {type: string}
resources:
  inner:
    type: inner.yaml
    properties: {site: {get_param: site}}
"""


def test_a_patch_update_drops_kept_parameters_the_new_template_lacks(client: Client) -> None:
    files = {"inner.yaml": INNER_V1}
    environment = [{"parameters": {"site": "env-site"}}]
    stack_id = client.create("patch", TOP_V1, {}, environment=environment, files=files)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    # The new template declares no `site`: the stack's kept value is dropped, as in Heat.
    # A preview of that update reads it as the update does (one planning step): it is not
    # refused for the dropped parameter, and says what the update will do.
    preview = client.preview(stack_id, PARENT, existing_parameters=True)
    assert [(r["name"], r["action"]) for r in preview["resources"]] == [("inner", "update")]
    client.update(stack_id, PARENT, existing_parameters=True)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert "site" not in client.environment(stack_id).get("parameters", {})
    # A value this request gives for an undeclared parameter is still refused by name.
    try:
        client.update(stack_id, PARENT, {"sight": "x"}, existing_parameters=True)
    except InvalidInput as exc:
        assert "sight" in str(exc)
    else:
        raise AssertionError("an unknown parameter given with the update was accepted")
