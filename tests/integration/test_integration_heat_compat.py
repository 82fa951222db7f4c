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


RANDOM = """
heat_template_version: 2018-08-31
parameters:
  length: {type: number, default: 12}
resources:
  password:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
      character_classes:
        - {class: digits, min: 3}
        - {class: uppercase, min: 2}
      character_sequences:
        - {sequence: "!@#", min: 2}
  pin:
    type: OS::Heat::RandomString
    properties:
      length: 6
      sequence: octdigits
outputs:
  password: {value: {get_attr: [password, value]}}
  pin: {value: {get_resource: pin}}
"""


def test_random_strings_meet_their_character_minimums(client: Client) -> None:
    started = client.create("random", RANDOM)
    # The deprecated sequence still works, with Heat's warning.
    assert started["warnings"] == [
        "resources.pin.properties.sequence: property sequence is HIDDEN since 5.0.0: Use "
        "property character_classes."
    ]
    assert client.wait(started["stack_id"])["status"] == "CREATE_COMPLETE"
    outputs = client.outputs(started["stack_id"])
    password, pin = outputs["password"]["value"], outputs["pin"]["value"]
    assert len(password) == 12 and set(password) <= set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#")
    assert sum(c.isdigit() for c in password) >= 3
    assert sum(c.isupper() for c in password) >= 2
    assert sum(c in "!@#" for c in password) >= 2
    assert len(pin) == 6 and set(pin) <= set("01234567")


def test_minimums_longer_than_the_string_are_refused(client: Client) -> None:
    # Written out, the length is judged when the template is checked; given by a parameter,
    # when the resource is made.
    fixed = RANDOM.replace("length: {get_param: length}", "length: 6")
    answer = client.validate(fixed)
    assert [(e["path"], e["line"]) for e in answer["errors"]] == [
        ("resources.password.properties.length", 9)
    ]
    assert "smaller than the 7 characters the minimums" in answer["errors"][0]["message"]
    try:
        client.create("too-short", fixed)
    except InvalidInput as exc:
        assert [p.path for p in exc.problems] == ["resources.password.properties.length"]
    else:
        raise AssertionError("minimums longer than the length were accepted")
    started = client.create("short-param", RANDOM, {"length": 5}, disable_rollback=True)
    final = client.wait(started["stack_id"])
    assert final["status"] == "CREATE_FAILED"
    assert "smaller than the 7 characters the minimums" in final["status_reason"]


def test_a_refused_choice_names_the_words_not_pythons_enums(client: Client) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "config": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "true"}},
            "deploy": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": "srv",
                    "actions": ["CREATE", "REBOOT"],
                },
            },
        },
    }
    [error] = client.validate(template)["errors"]
    assert error["path"] == "resources.deploy.properties.actions[1]"
    assert "'CREATE', 'UPDATE', 'DELETE'" in error["message"] and "REBOOT" in error["message"]
    assert "<" not in error["message"] and "DeployAction" not in error["message"]
