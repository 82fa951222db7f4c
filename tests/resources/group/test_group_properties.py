"""ResourceGroup properties and update_policy: Heat's defaults, and bad input refused with
the template path of every problem."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.resources.builtin.group import (
    BatchCreate,
    GroupProperties,
    MemberDefinition,
    RollingUpdate,
    UpdatePolicy,
    group_properties,
    update_policy,
)
from conv_tasks.resources.builtin.group import schema as s
from conv_tasks.sdk import visible_schemas

WHERE = "resources.grp.properties"


def problems(exc: pytest.ExceptionInfo[InvalidInput]) -> dict[str, str]:
    return {p.path: p.message for p in exc.value.problems}


def test_defaults_are_heats() -> None:
    group = group_properties({"resource_def": {"type": "OS::Heat::None"}}, path=WHERE)
    assert group == GroupProperties(
        count=1,
        index_var="%index%",
        resource_def=MemberDefinition("OS::Heat::None", {}, None),
        removal_entries=(),
        removal_mode="append",
    )


def test_values_are_converted_and_null_member_properties_dropped() -> None:
    group = group_properties(
        {
            "count": "3",
            "index_var": "__i__",
            "resource_def": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "v__i__", "fail": None},
                "metadata": {"role": "web"},
            },
            "removal_policies": [{"resource_list": ["1", 2]}, {"resource_list": ["ref-x"]}],
            "removal_policies_mode": "update",
        },
        path=WHERE,
    )
    assert group.count == 3
    assert group.index_var == "__i__"
    assert group.resource_def == MemberDefinition(
        "OS::Heat::TestResource", {"value": "v__i__"}, {"role": "web"}
    )
    assert group.removal_entries == ("1", 2, "ref-x")
    assert group.removal_mode == "update"


@pytest.mark.parametrize(
    ("values", "path", "message"),
    [
        ({}, f"{WHERE}.resource_def", "is required but has no value."),
        (
            {"resource_def": {"type": "X"}, "count": -1},
            f"{WHERE}.count",
            "must be at least 0; got -1.",
        ),
        (
            {"resource_def": {"type": "X"}, "count": 1.5},
            f"{WHERE}.count",
            "must be an integer, not the number 1.5.",
        ),
        (
            {"resource_def": {"type": "X"}, "index_var": "%i"},
            f"{WHERE}.index_var",
            "must have a length of at least 3; got 2.",
        ),
        ({"resource_def": {}}, f"{WHERE}.resource_def.type", "is required but has no value."),
        (
            {"resource_def": {"type": "  "}},
            f"{WHERE}.resource_def.type",
            "must name a resource type.",
        ),
        (
            {"resource_def": {"type": "X", "propertys": {}}},
            f"{WHERE}.resource_def.propertys",
            "is not a known property; did you mean 'properties'?",
        ),
        (
            {"resource_def": {"type": "X", "properties": ["a"]}},
            f"{WHERE}.resource_def.properties",
            "must be a map, not a list.",
        ),
        (
            {"resource_def": {"type": "X"}, "removal_policies": [{"resource_list": [["0"]]}]},
            f"{WHERE}.removal_policies[0].resource_list[0]",
            "must be a member name, index or reference (a string or an integer), not a list.",
        ),
        (
            {"resource_def": {"type": "X"}, "removal_policies": [{"resource_list": [True]}]},
            f"{WHERE}.removal_policies[0].resource_list[0]",
            "must be a member name, index or reference (a string or an integer), "
            "not the boolean true.",
        ),
        (
            {"resource_def": {"type": "X"}, "removal_policies": [{"names": ["0"]}]},
            f"{WHERE}.removal_policies[0].names",
            "is not a known property; known properties: resource_list.",
        ),
        (
            {"resource_def": {"type": "X"}, "removal_policies_mode": "replace"},
            f"{WHERE}.removal_policies_mode",
            "must be one of 'append', 'update', not 'replace'.",
        ),
        (
            {"resource_def": {"type": "X"}, "size": 2},
            f"{WHERE}.size",
            "is not a known property; known properties: count, index_var, removal_policies, "
            "removal_policies_mode, resource_def.",
        ),
    ],
)
def test_bad_properties_are_refused_by_path(
    values: dict[str, Any], path: str, message: str
) -> None:
    with pytest.raises(InvalidInput) as exc:
        group_properties(values, path=WHERE)
    assert problems(exc)[path] == message
    assert exc.value.what == "properties"


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(InvalidInput) as exc:
        group_properties(
            {
                "count": -2,
                "resource_def": {"type": ""},
                "removal_policies": [{"resource_list": [{"a": 1}]}],
            },
            path=WHERE,
        )
    # The schema's problems come first; what only the group can tell is checked on good shapes.
    assert set(problems(exc)) == {f"{WHERE}.count"}
    with pytest.raises(InvalidInput) as exc:
        group_properties(
            {"resource_def": {"type": ""}, "removal_policies": [{"resource_list": [{"a": 1}]}]},
            path=WHERE,
        )
    assert set(problems(exc)) == {
        f"{WHERE}.resource_def.type",
        f"{WHERE}.removal_policies[0].resource_list[0]",
    }


def test_no_update_policy_enables_nothing() -> None:
    assert update_policy(None, path="p") == UpdatePolicy()
    assert update_policy({}, path="p") == UpdatePolicy()


def test_an_empty_policy_map_enables_it_with_heats_defaults() -> None:
    policy = update_policy({"rolling_update": {}, "batch_create": {}}, path="p")
    assert policy == UpdatePolicy(RollingUpdate(1, 0, 0.0), BatchCreate(1, 0.0))


def test_update_policy_values() -> None:
    policy = update_policy(
        {"rolling_update": {"max_batch_size": "3", "min_in_service": 2, "pause_time": 1.5}},
        path="p",
    )
    assert policy == UpdatePolicy(RollingUpdate(3, 2, 1.5), None)


@pytest.mark.parametrize(
    ("values", "path", "message"),
    [
        (
            {"rolling_update": {"max_batch_size": 0}},
            "resources.grp.update_policy.rolling_update.max_batch_size",
            "must be at least 1; got 0.",
        ),
        (
            {"rolling_update": {"min_in_service": -1}},
            "resources.grp.update_policy.rolling_update.min_in_service",
            "must be at least 0; got -1.",
        ),
        (
            {"batch_create": {"pause_time": -0.5}},
            "resources.grp.update_policy.batch_create.pause_time",
            "must be at least 0; got -0.5.",
        ),
        (
            {"batch_create": {"min_in_service": 1}},
            "resources.grp.update_policy.batch_create.min_in_service",
            "is not a known property; known properties: max_batch_size, pause_time.",
        ),
        (
            {"rolling_updates": {}},
            "resources.grp.update_policy.rolling_updates",
            "is not a known property; did you mean 'rolling_update'?",
        ),
        (
            {"rolling_update": "yes"},
            "resources.grp.update_policy.rolling_update",
            "must be a map, not the string 'yes'.",
        ),
    ],
)
def test_bad_update_policy_is_refused_by_path(
    values: dict[str, Any], path: str, message: str
) -> None:
    with pytest.raises(InvalidInput) as exc:
        update_policy(values, path="resources.grp.update_policy")
    assert problems(exc) == {path: message}
    assert str(exc.value).startswith("Invalid update_policy:")


def test_schema_documents_heats_names() -> None:
    assert set(visible_schemas(s.PROPERTIES)) == {
        "count",
        "index_var",
        "resource_def",
        "removal_policies",
        "removal_policies_mode",
    }
    assert set(visible_schemas(s.ATTRIBUTES_SCHEMA)) == {
        "refs",
        "refs_map",
        "attributes",
        "removed_rsrc_list",
    }
    assert set(s.UPDATE_POLICY) == {"rolling_update", "batch_create"}
    assert s.PROPERTIES["count"].update_allowed
    assert s.PROPERTIES["resource_def"].update_allowed
    assert not s.PROPERTIES["index_var"].update_allowed
