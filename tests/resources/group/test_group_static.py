"""What template validate can tell about a group before it runs: the member type, the
member properties against that type's schema, and removal entries."""

from __future__ import annotations

from typing import Any

from conv_tasks.resources import ResourceType, default_registry
from conv_tasks.resources.builtin.group.static import static_group_problems

WHERE = "resources.grp.properties"


def lookup(name: str) -> type[ResourceType] | None:
    registry = default_registry()
    return registry.get(name) if name in registry else None


def problems(values: Any) -> dict[str, str]:
    return {p.path: p.message for p in static_group_problems(values, path=WHERE, lookup=lookup)}


def test_a_good_group_has_no_problems() -> None:
    values = {
        "count": 2,
        "resource_def": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "v%index%", "wait_secs": {"get_param": "w"}},
        },
        "removal_policies": [{"resource_list": ["0", 1, {"get_param": "gone"}]}],
    }
    assert problems(values) == {}


def test_an_unknown_member_type() -> None:
    assert problems({"resource_def": {"type": "OS::Nova::Sever"}}) == {
        f"{WHERE}.resource_def.type": "unknown resource type 'OS::Nova::Sever'; "
        "see `conv-tasks resource-type list`."
    }


def test_a_zero_count_switches_member_checks_off_as_in_heat() -> None:
    assert problems({"count": 0, "resource_def": {"type": "OS::Nova::Sever"}}) == {}
    assert problems({"count": "0", "resource_def": {"type": "OS::Nova::Sever"}}) == {}


def test_member_properties_are_checked_against_the_member_type() -> None:
    values = {
        "resource_def": {
            "type": "OS::Heat::TestResource",
            "properties": {"valu": "x", "wait_secs": "soon"},
        }
    }
    found = problems(values)
    assert set(found) == {
        f"{WHERE}.resource_def.properties.valu",
        f"{WHERE}.resource_def.properties.wait_secs",
    }
    assert found[f"{WHERE}.resource_def.properties.wait_secs"].startswith("must be a number")


def test_member_properties_are_checked_with_the_first_index_put_in() -> None:
    values = {
        "index_var": "__n__",
        "resource_def": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": "__n__"}},
    }
    assert problems(values) == {}


def test_a_member_type_given_by_a_function_is_taken_on_trust() -> None:
    assert problems({"resource_def": {"type": {"get_param": "kind"}}}) == {}
    assert problems({"resource_def": {"get_param": "def"}}) == {}


def test_removal_entries_of_the_wrong_kind() -> None:
    values = {
        "count": 0,
        "resource_def": {"type": "OS::Heat::None"},
        "removal_policies": [{"resource_list": ["0"]}, {"resource_list": [1.5, ["x"]]}],
    }
    assert set(problems(values)) == {
        f"{WHERE}.removal_policies[1].resource_list[0]",
        f"{WHERE}.removal_policies[1].resource_list[1]",
    }


def test_shapes_the_group_schema_reports_are_left_to_it() -> None:
    assert problems("not a map") == {}
    assert problems({"resource_def": {"type": 5}}) == {}
    assert problems({"resource_def": {"type": "OS::Heat::None", "properties": [1]}}) == {}
    assert problems({"resource_def": {"type": "OS::Heat::None"}, "removal_policies": "x"}) == {}
