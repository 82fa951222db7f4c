"""The child template of a group: index_var put in every string of the member properties,
the outputs the group reads back, and a template the loader accepts."""

from __future__ import annotations

from typing import Any

from conv_tasks.resources.builtin.group import (
    MemberDefinition,
    child_template,
    group_template,
    member_definition,
    members_from_outputs,
    substitute_index,
)
from conv_tasks.template.group_attributes import MemberData
from conv_tasks.template.loader import load_template


def test_substitution_reaches_every_string_at_any_depth() -> None:
    value = {
        "name": "web-%index%",
        "tags": ["a", "%index%-%index%", {"deep": ["x%index%y"]}],
        "size": 3,
        "on": True,
        "none": None,
        "%index%": "key stays",
    }
    assert substitute_index(value, "%index%", "4") == {
        "name": "web-4",
        "tags": ["a", "4-4", {"deep": ["x4y"]}],
        "size": 3,
        "on": True,
        "none": None,
        "%index%": "key stays",
    }


def test_substitution_leaves_its_input_alone() -> None:
    value: dict[str, Any] = {"a": ["%index%"]}
    substitute_index(value, "%index%", "1")
    assert value == {"a": ["%index%"]}


def test_a_custom_index_var() -> None:
    assert substitute_index("srv-__n__ %index%", "__n__", "2") == "srv-2 %index%"


def test_functions_in_member_properties_are_substituted_too() -> None:
    value = {"str_replace": {"template": "host-%index%-$x", "params": {"$x": "%index%"}}}
    assert substitute_index(value, "%index%", "0") == {
        "str_replace": {"template": "host-0-$x", "params": {"$x": "0"}}
    }


def test_member_definition_substitutes_properties_not_metadata() -> None:
    definition = MemberDefinition(
        "OS::Heat::TestResource", {"value": "v%index%"}, {"note": "m%index%"}
    )
    assert member_definition(definition, "2", "%index%") == {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "v2"},
        "metadata": {"note": "m%index%"},
    }


def test_member_definition_without_properties_or_metadata() -> None:
    assert member_definition(MemberDefinition("OS::Heat::None", {}), "0", "%index%") == {
        "type": "OS::Heat::None"
    }


def test_member_definition_does_not_share_the_group_definition() -> None:
    definition = MemberDefinition("T", {"list": [1]}, {"m": [1]})
    made = member_definition(definition, "0", "%index%")
    made["properties"]["list"].append(2)
    made["metadata"]["m"].append(2)
    assert definition == MemberDefinition("T", {"list": [1]}, {"m": [1]})


def test_group_template_has_every_member_and_the_outputs() -> None:
    definition = MemberDefinition("OS::Heat::TestResource", {"value": "v%index%"})
    template = group_template(definition, ["0", "2"], "%index%", ["output", "output"])
    assert template == {
        "heat_template_version": "2015-04-30",
        "resources": {
            "0": {"type": "OS::Heat::TestResource", "properties": {"value": "v0"}},
            "2": {"type": "OS::Heat::TestResource", "properties": {"value": "v2"}},
        },
        "outputs": {
            "refs_map": {"value": {"0": {"get_resource": "0"}, "2": {"get_resource": "2"}}},
            "member_attribute.output": {
                "value": {"0": {"get_attr": ["0", "output"]}, "2": {"get_attr": ["2", "output"]}}
            },
        },
    }


def test_the_loader_accepts_a_generated_template() -> None:
    definition = MemberDefinition("OS::Heat::TestResource", {"value": "v%index%"}, {"k": "v"})
    loaded = load_template(group_template(definition, ["0", "1", "5"], "%index%", ["output"]))
    assert sorted(loaded.resources) == ["0", "1", "5"]
    assert loaded.resources["5"].properties == {"value": "v5"}
    assert sorted(loaded.outputs) == ["member_attribute.output", "refs_map"]


def test_an_empty_group_template_loads() -> None:
    loaded = load_template(group_template(MemberDefinition("OS::Heat::None", {}), [], "%index%"))
    assert not loaded.resources


def test_child_template_keeps_each_members_own_definition() -> None:
    template = child_template([("0", {"type": "Old"}), ("1", {"type": "New"})])
    assert template["resources"] == {"0": {"type": "Old"}, "1": {"type": "New"}}


def test_members_from_outputs() -> None:
    members = members_from_outputs(
        {
            "refs_map": {"0": "id-0", "1": "id-1"},
            "member_attribute.output": {"0": "a", "1": "b"},
            "member_attribute.ip": {"0": "10.0.0.1"},
            "unrelated": {"0": "x"},
        }
    )
    assert members == {
        "0": MemberData("0", "id-0", {"output": "a", "ip": "10.0.0.1"}),
        "1": MemberData("1", "id-1", {"output": "b"}),
    }


def test_members_from_missing_outputs_is_empty() -> None:
    assert members_from_outputs({}) == {}
    assert members_from_outputs({"refs_map": None}) == {}
