"""static_problems and template_problems: checking templates before anything runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from conv_tasks.resources import (
    Registry,
    ResourceType,
    build_registry,
    default_registry,
    static_problems,
    template_problems,
)
from conv_tasks.resources.builtin import NoneResource
from conv_tasks.sdk import (
    INTEGER,
    LIST,
    MAP,
    REPLACE,
    STRING,
    Constraint,
    PropertySchema,
    TranslationRule,
)
from conv_tasks.template import load_template

PATH = "resources.web.properties"


class Server(ResourceType):
    type_name: ClassVar[str] = "Test::Server"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "name": PropertySchema(STRING, required=True),
        "size": PropertySchema(INTEGER, constraints=(Constraint.range(1, 4),)),
        "networks": PropertySchema(
            LIST,
            constraints=(Constraint.length(1, 2),),
            schema={"port": PropertySchema(INTEGER, required=True), "ip": PropertySchema(STRING)},
        ),
        "volume": PropertySchema(MAP, schema={"size": PropertySchema(INTEGER, required=True)}),
        "count": PropertySchema(INTEGER),
    }

    def translation_rules(self) -> Sequence[TranslationRule]:
        return (TranslationRule(REPLACE, ("size",), value_path=("count",)),)


def found(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in static_problems(Server, values, path=PATH)]


def test_literal_values_are_checked_like_at_run_time() -> None:
    assert found({"name": "w", "size": 9, "bogus": 1}) == [
        (
            f"{PATH}.bogus",
            "is not a known property; known properties: count, name, networks, size, volume.",
        ),
        (f"{PATH}.size", "must be between 1 and 4; got 9."),
    ]


def test_functions_are_taken_on_trust() -> None:
    assert (
        found(
            {
                "name": {"get_param": "name"},
                "size": {"get_attr": ["other", "size"]},
                "networks": {"get_param": "networks"},
                "volume": {"get_param": "volume"},
            }
        )
        == []
    )


def test_a_missing_required_property_given_by_a_function_is_fine() -> None:
    assert found({"name": {"str_replace": {"template": "w-$n", "params": {"$n": 1}}}}) == []
    assert found({"size": 1}) == [(f"{PATH}.name", "is required but has no value.")]


def test_list_items_are_checked_around_functions() -> None:
    values = {
        "name": "w",
        "networks": [{"get_param": "net"}, {"port": "eighty", "ip": {"get_param": "ip"}}],
    }
    assert found(values) == [
        (f"{PATH}.networks[1].port", "must be an integer, not the string 'eighty'.")
    ]


def test_literal_maps_with_functions_are_still_checked() -> None:
    values = {"name": "w", "volume": {"size": {"get_param": "s"}, "kind": "ssd"}}
    assert found(values) == [
        (f"{PATH}.volume.kind", "is not a known property; known properties: size.")
    ]
    assert found({"name": "w", "volume": {"kind": {"get_param": "k"}}}) == []


def test_constraints_on_partly_unknown_values_are_not_judged() -> None:
    values = {"name": "w", "networks": [{"port": 1}, {"port": 2}, {"get_param": "n"}]}
    assert found(values) == []
    assert found({"name": "w", "networks": [{"port": 1}, {"port": 2}, {"port": 3}]}) == [
        (f"{PATH}.networks", "must have a length between 1 and 2; got 3.")
    ]


def test_translation_applies_and_can_conflict() -> None:
    assert found({"name": "w", "count": 7}) == [(f"{PATH}.size", "must be between 1 and 4; got 7.")]
    assert found({"name": "w", "count": {"get_param": "c"}, "size": 2}) == []
    assert [p for p, _ in found({"name": "w", "count": 1, "size": 2})] == [f"{PATH}.count"]


def test_whole_properties_section_as_a_function() -> None:
    assert static_problems(Server, {"get_param": "props"}, path=PATH) == []


def test_schema_less_types_have_no_static_problems() -> None:
    assert static_problems(NoneResource, {"x": {"get_param": "y"}, "z": 1}, path=PATH) == []


TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  v:
    type: string
resources:
  good:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: v}
      wait_secs: 1
  bad:
    type: OS::Heat::TestResource
    properties:
      wait_secs: -1
      colour: red
  old:
    type: OS::Heat::TestResourceOld
    properties:
      output_value: {get_resource: good}
  gone:
    type: OS::Heat::Dummy
  mystery:
    type: OS::Nova::Server
    properties:
      flavor: small
"""


def test_template_problems_and_warnings() -> None:
    template = load_template(TEMPLATE)
    problems, warnings = template_problems(template, default_registry())
    assert [(p.path, p.message) for p in problems] == [
        (
            "resources.bad.properties.colour",
            "is not a known property; known properties: action_timeout_secs, action_wait_secs, "
            "attr_wait_secs, client_name, constraint_prop_secs, entity_name, fail, fail_on, "
            "update_replace, update_replace_value, value, wait_secs.",
        ),
        ("resources.bad.properties.wait_secs", "must be between 0 and 3600; got -1."),
        (
            "resources.mystery.type",
            "unknown resource type 'OS::Nova::Server'; see `conv-tasks resource-type list`.",
        ),
    ]
    assert warnings == [
        "resources.old: resource type OS::Heat::TestResourceOld is DEPRECATED since 5.0.0: "
        "Use OS::Heat::TestResource instead.",
        "resources.old.properties.output_value: property output_value is HIDDEN since 6.0.0: "
        "Use property value instead.",
        "resources.gone: resource type OS::Heat::Dummy is HIDDEN since 6.0.0: "
        "Use OS::Heat::None instead.",
    ]


def test_a_clean_template_has_no_problems() -> None:
    template = load_template(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties: {value: x}\n"
    )
    assert template_problems(template, build_registry()) == ([], [])


def test_the_registry_passed_in_is_the_one_used() -> None:
    template = load_template(
        "heat_template_version: 2018-08-31\nresources:\n  a:\n    type: OS::Heat::TestResource\n"
    )
    assert template_problems(template, build_registry()) == ([], [])
    only_none = Registry()
    only_none.register(NoneResource)
    problems, _ = template_problems(template, only_none)
    assert [p.path for p in problems] == ["resources.a.type"]
