"""A ResourceGroup in a template, before anything runs: update_policy accepted on resources
and checked against the type's schema, the group's own static checks in `template validate`
and in a stack's definition, and get_attr on a group applied per member (issue 10)."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.validate import validate_template
from conv_tasks.errors import TemplateError
from conv_tasks.template import ResourceData, load_template, resolve_outputs, resolve_resource
from conv_tasks.template.member_view import MEMBER_VIEW, member_view_data


def _group(**extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": 2,
            "resource_def": {"type": "OS::Heat::TestResource", "properties": {"value": "%index%"}},
        },
    }
    spec.update(extra)
    return spec


def _template(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources, **extra}


def _errors(template: dict[str, Any]) -> dict[str, str]:
    result = validate_template(template)
    return {e["path"]: e["message"] for e in result["errors"]}


def test_update_policy_is_accepted_on_a_group() -> None:
    policy = {"rolling_update": {"max_batch_size": 2, "pause_time": 3}}
    assert _errors(_template({"g": _group(update_policy=policy)})) == {}
    definition = StackDefinition.build(_template({"g": _group(update_policy=policy)}), {})
    assert definition.template.resources["g"].update_policy == policy


def test_update_policy_may_use_parameters_and_resolves_with_them() -> None:
    template = _template(
        {"g": _group(update_policy={"rolling_update": {"max_batch_size": {"get_param": "n"}}})},
        parameters={"n": {"type": "number", "default": 3}},
    )
    assert _errors(template) == {}
    definition = StackDefinition.build(template, {})
    resolved = resolve_resource(definition.template, "g", definition.parameters, {})
    assert resolved.update_policy == {"rolling_update": {"max_batch_size": 3}}


def test_update_policy_counts_in_the_definition_hash_only_when_given() -> None:
    plain = _template({"g": _group()})
    with_policy = _template({"g": _group(update_policy={"batch_create": {}})})
    a = resolve_resource(load_template(plain), "g", {}, {})
    b = resolve_resource(load_template(with_policy), "g", {}, {})
    assert a.definition_hash != b.definition_hash
    # A resource without a policy hashes as before update_policy existed.
    from conv_tasks.template.resolve import definition_hash

    assert a.definition_hash == definition_hash(a.type, a.properties, a.metadata)


def test_update_policy_on_a_type_without_one_is_refused_by_name() -> None:
    spec = {"type": "OS::Heat::TestResource", "update_policy": {"rolling_update": {}}}
    errors = _errors(_template({"t": spec}))
    assert list(errors) == ["resources.t.update_policy"]
    assert "'OS::Heat::TestResource' has no update policy" in errors["resources.t.update_policy"]
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(_template({"t": spec}), {})
    assert "resources.t.update_policy" in str(caught.value)


def test_a_bad_update_policy_names_the_key() -> None:
    policy = {"rolling_update": {"max_batch_size": 0, "pause": 1}, "other": {}}
    errors = _errors(_template({"g": _group(update_policy=policy)}))
    assert set(errors) == {
        "resources.g.update_policy.rolling_update.max_batch_size",
        "resources.g.update_policy.rolling_update.pause",
        "resources.g.update_policy.other",
    }


def test_update_policy_must_be_a_mapping() -> None:
    errors = _errors(_template({"g": _group(update_policy=["rolling_update"])}))
    assert errors == {"resources.g.update_policy": "must be a mapping"}


def test_template_validate_runs_the_group_static_checks() -> None:
    bad_member = _group()
    bad_member["properties"]["resource_def"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "%index%", "colour": "red"},
    }
    unknown = _group()
    unknown["properties"]["resource_def"] = {"type": "OS::Nova::Nothing"}
    removal = _group()
    removal["properties"]["removal_policies"] = [{"resource_list": [["1"]]}]
    errors = _errors(_template({"a": bad_member, "b": unknown, "c": removal}))
    assert set(errors) == {
        "resources.a.properties.resource_def.properties.colour",
        "resources.b.properties.resource_def.type",
        "resources.c.properties.removal_policies[0].resource_list[0]",
    }
    assert (
        "unknown resource type 'OS::Nova::Nothing'"
        in errors["resources.b.properties.resource_def.type"]
    )


def test_a_group_of_zero_skips_the_member_checks_as_heat_does() -> None:
    spec = _group()
    spec["properties"]["count"] = 0
    spec["properties"]["resource_def"] = {"type": "OS::Nova::Nothing"}
    assert _errors(_template({"g": spec})) == {}


def _view() -> ResourceData:
    members = {
        "0": ("ref-0", {"output": "a", "info": {"k": 1}}),
        "2": ("ref-2", {"output": "b", "info": {"k": 2}}),
    }
    view = member_view_data("g", ["0", "2"], members, ["1"])
    return ResourceData("child-id", {MEMBER_VIEW: view})


OUTPUTS = {
    "refs": ["g", "refs"],
    "ref_1": ["g", "refs", 1],
    "refs_map": ["g", "refs_map"],
    "each": ["g", "output"],
    "each_path": ["g", "info", "k"],
    "attributes": ["g", "attributes", "info", "k"],
    "member": ["g", "resource.2"],
    "member_attr": ["g", "resource.2.output"],
    "member_path": ["g", "resource.2", "info", "k"],
    "removed": ["g", "removed_rsrc_list"],
}


def test_get_attr_on_a_group_applies_its_path_per_member() -> None:
    outputs = {name: {"value": {"get_attr": args}} for name, args in OUTPUTS.items()}
    template = load_template(_template({"g": _group()}, outputs=outputs))
    values = {k: v["value"] for k, v in resolve_outputs(template, {}, {"g": _view()}).items()}
    assert values == {
        "refs": ["ref-0", "ref-2"],
        "ref_1": "ref-2",
        "refs_map": {"0": "ref-0", "2": "ref-2"},
        "each": ["a", "b"],
        "each_path": [1, 2],
        "attributes": {"0": 1, "2": 2},
        "member": "ref-2",
        "member_attr": "b",
        "member_path": 2,
        "removed": ["1"],
    }


def test_a_member_the_group_does_not_have_is_an_error_naming_it() -> None:
    outputs = {
        "gone": {"value": {"get_attr": ["g", "resource.1"]}},
        "bare": {"value": {"get_attr": ["g", "attributes"]}},
    }
    template = load_template(_template({"g": _group()}, outputs=outputs))
    resolved = resolve_outputs(template, {}, {"g": _view()})
    assert resolved["gone"]["value"] is None
    assert "has no member '1' (its members: 0, 2)" in resolved["gone"]["error"]
    assert "needs the name of a member attribute" in resolved["bare"]["error"]


def test_attribute_references_keep_literal_paths() -> None:
    template = load_template(
        _template(
            {
                "g": _group(),
                "u": {
                    "type": "OS::Heat::TestResource",
                    "properties": {
                        "value": {"get_attr": ["g", "attributes", {"get_param": "x"}, "y"]}
                    },
                },
            },
            parameters={"x": {"type": "string", "default": "output"}},
            outputs={"o": {"value": {"get_attr": ["g", "resource.0", "output"]}}},
        )
    )
    assert template.attribute_references() == {
        "g": (("attributes", ()), ("resource.0", ("output",)))
    }


def test_template_validate_refuses_group_references_that_never_have_a_value() -> None:
    outputs = {
        "bare": {"value": {"get_attr": ["g", "attributes"]}},
        "fine": {"value": {"get_attr": ["g", "attributes", "output"]}},
        "any": {"value": {"get_attr": ["g", "whatever_members_have"]}},
    }
    errors = _errors(_template({"g": _group()}, outputs=outputs))
    assert list(errors) == ["outputs.bare.value.get_attr"]
    assert "needs the name of a member attribute" in errors["outputs.bare.value.get_attr"]


# --- where the group meets the functions, conditions and environments work -------------


def test_get_attr_of_the_whole_group_gives_what_needs_no_member_named() -> None:
    # get_attr [group] (every attribute, 2015-10-15 on): refs, refs_map and
    # removed_rsrc_list; not 'attributes' nor resource.N, which need a name after them.
    outputs = {"all": {"value": {"get_attr": ["g"]}}}
    body = _template({"g": _group()}, outputs=outputs)
    assert _errors(body) == {}
    template = load_template(body)
    assert template.attribute_references() == {}  # no member attribute to carry
    resolved = resolve_outputs(template, {}, {"g": _view()})
    assert resolved["all"]["value"] == {
        "refs": ["ref-0", "ref-2"],
        "refs_map": {"0": "ref-0", "2": "ref-2"},
        "removed_rsrc_list": ["1"],
    }


def test_update_policy_follows_conditions_and_if() -> None:
    policy = {
        "rolling_update": {
            "max_batch_size": {"if": ["big", 5, 1]},
            "pause_time": {"if": ["big", 10]},  # 2021-04-16: no false value, the key goes
        }
    }
    body = {
        "heat_template_version": "2021-04-16",
        "parameters": {"size": {"type": "string", "default": "small"}},
        "conditions": {"big": {"equals": [{"get_param": "size"}, "big"]}},
        "resources": {"g": _group(update_policy=policy)},
    }
    small = StackDefinition.build(body, {})
    assert small.template.resources["g"].update_policy == {"rolling_update": {"max_batch_size": 1}}
    big = StackDefinition.build(body, {"size": "big"})
    resolved = resolve_resource(big.template, "g", big.parameters, {})
    assert resolved.update_policy == {"rolling_update": {"max_batch_size": 5, "pause_time": 10}}


def test_a_group_left_out_by_its_condition_is_not_in_the_stack() -> None:
    body = {
        "heat_template_version": "2018-08-31",
        "parameters": {"on": {"type": "boolean", "default": False}},
        "conditions": {"wanted": {"get_param": "on"}},
        "resources": {"g": _group(condition="wanted", update_policy={"batch_create": {}})},
    }
    assert StackDefinition.build(body, {}).template.resources == {}
    assert set(StackDefinition.build(body, {"on": True}).template.resources) == {"g"}


def test_member_types_map_through_the_environment_as_the_child_will() -> None:
    from conv_tasks.template.environment import merge_environments

    aliased = _group()
    aliased["properties"]["resource_def"] = {
        "type": "My::Member",
        "properties": {"value": "%index%"},
    }
    wrong = _group()
    wrong["properties"]["resource_def"] = {"type": "My::Member", "properties": {"colour": 1}}
    provided = _group()
    provided["properties"]["resource_def"] = {
        "type": "box.yaml",
        "properties": {"size": "%index%"},
    }
    bad_provided = _group()
    bad_provided["properties"]["resource_def"] = {
        "type": "My::Box",
        "properties": {"size": "s", "weight": 3},
    }
    files = {
        "box.yaml": (
            "heat_template_version: 2018-08-31\nparameters: {size: {type: string}}\nresources: {}\n"
        )
    }
    registry = {"My::Member": "OS::Heat::TestResource", "My::Box": "box.yaml"}
    body = _template({"a": aliased, "b": wrong, "c": provided, "d": bad_provided})
    environment = [{"resource_registry": registry}]
    result = validate_template(body, environment=environment, files=files)
    errors = {e["path"]: e["message"] for e in result["errors"]}
    assert set(errors) == {
        "resources.b.properties.resource_def.properties.colour",
        "resources.d.properties.resource_def.properties.weight",
    }
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(body, {}, environment=merge_environments(environment), files=files)
    assert {p.path for p in caught.value.problems} == set(errors)
    fine = _template({"a": aliased, "c": provided})
    StackDefinition.build(fine, {}, environment=merge_environments(environment), files=files)
    # Without the environment the member type is unknown, as before.
    assert "resources.a.properties.resource_def.type" in _errors(_template({"a": aliased}))


def test_prepare_counts_the_member_attributes_read_in_the_definition_hash() -> None:
    # Done in StackDefinition.prepare, so that the node and `stack preview` decide alike:
    # a group whose read member attributes did not change is unchanged in both.
    def hash_with(outputs: dict[str, Any]) -> str:
        definition = StackDefinition.build(_template({"g": _group()}, outputs=outputs), {})
        return definition.prepare("g", {}).resolved.definition_hash

    plain = hash_with({})
    refs_only = hash_with({"r": {"value": {"get_attr": ["g", "refs"]}}})
    output = hash_with({"o": {"value": {"get_attr": ["g", "output"]}}})
    assert plain == refs_only  # refs need nothing from the members' attributes
    assert output != plain
    assert output == hash_with({"o": {"value": {"get_attr": ["g", "attributes", "output"]}}})
