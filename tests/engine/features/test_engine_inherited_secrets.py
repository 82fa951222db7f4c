"""A child stack is given its parent's hidden values as hidden parameters of its own."""

from __future__ import annotations

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.features.nested.inherited_secrets import PREFIX, with_inherited_secrets

CHILD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"size": {"type": "number"}},
    "resources": {"a": {"type": "OS::Heat::TestResource", "properties": {"value": "pw=s3cr3t"}}},
}


def test_no_secrets_leave_the_request_as_it_is() -> None:
    assert with_inherited_secrets(CHILD, {"size": 1}, [None, ""]) == (CHILD, {"size": 1})


def test_secrets_become_hidden_parameters_the_child_masks() -> None:
    template, parameters = with_inherited_secrets(CHILD, {"size": 1}, ["s3cr3t", 42, "s3cr3t"])
    assert parameters == {"size": 1, f"{PREFIX}0": "42", f"{PREFIX}1": "s3cr3t"}
    assert isinstance(template, dict)
    assert template["parameters"]["size"] == {"type": "number"}
    assert template["parameters"][f"{PREFIX}1"]["hidden"] is True
    definition = StackDefinition.build(template, parameters)
    assert definition.redact("value pw=s3cr3t") == "value pw=******"
    # Given again (a child's update), the earlier inherited ones are replaced, not added to.
    again, values = with_inherited_secrets(template, parameters, ["other"])
    assert isinstance(again, dict)
    assert sorted(again["parameters"]) == [f"{PREFIX}0", "size"]
    assert values == {"size": 1, f"{PREFIX}0": "other"}


def test_a_template_given_as_text_is_loaded_and_a_broken_one_left_alone() -> None:
    text = "heat_template_version: 2018-08-31\nresources: {}\n"
    template, parameters = with_inherited_secrets(text, {}, ["x-secret"])
    assert isinstance(template, dict) and parameters == {f"{PREFIX}0": "x-secret"}
    assert with_inherited_secrets("resources: [", {}, ["x-secret"]) == ("resources: [", {})


def test_a_child_template_reading_files_gets_the_secrets_and_keeps_its_get_file() -> None:
    # A provider template or OS::Heat::Stack child may use get_file: it loads with the
    # files the parent hands down, and the template sent on still has the call.
    child = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "a": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_file": "v.txt"}}}
        },
    }
    files = {"v.txt": "pw=s3cr3t"}
    template, parameters = with_inherited_secrets(child, {}, ["s3cr3t"], files=files)
    assert isinstance(template, dict)
    assert parameters == {f"{PREFIX}0": "s3cr3t"}
    assert template["resources"]["a"]["properties"]["value"] == {"get_file": "v.txt"}
    definition = StackDefinition.build(template, parameters, files=files)
    assert definition.redact("value pw=s3cr3t") == "value pw=******"
