"""StackDefinition: a template and its parameters, checked once and prepared per resource."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.redact import MASK
from conv_tasks.errors import (
    ConvTasksError,
    CycleError,
    InvalidInput,
    ParameterError,
    TemplateError,
)
from conv_tasks.resources.builtin.test_resource import TestResource
from conv_tasks.template import ResourceData

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  password: {type: string, hidden: true}
  size: {type: number, default: 3}
resources:
  db:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: password}
  web:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [db, output]}
      wait_secs: {get_param: size}
  lb:
    type: OS::Heat::None
    depends_on: [web]
outputs:
  web_id:
    value: {get_attr: [web, physical_id]}
"""


@pytest.fixture
def definition() -> StackDefinition:
    return StackDefinition.build(TEMPLATE, {"password": "correct-horse"})


def problem_paths(exc: InvalidInput) -> list[str]:
    return [p.path for p in exc.problems]


# ------------------------------------------------------------------------- build


def test_dependencies_come_from_references_and_depends_on(definition: StackDefinition) -> None:
    assert definition.dependencies == {
        "db": frozenset(),
        "web": frozenset({"db"}),
        "lb": frozenset({"web"}),
    }


def test_attributes_needed_include_resources_and_outputs(definition: StackDefinition) -> None:
    assert definition.attributes_needed == {
        "db": frozenset({"output"}),
        "web": frozenset({"physical_id"}),
        "lb": frozenset(),
    }


def test_parameters_get_their_defaults_and_types(definition: StackDefinition) -> None:
    declared = {k: v for k, v in definition.parameters.items() if not k.startswith("OS::")}
    assert declared == {"password": "correct-horse", "size": 3}
    assert definition.warnings == ()


def test_build_accepts_a_parsed_mapping() -> None:
    source = {
        "heat_template_version": "2018-08-31",
        "resources": {"only": {"type": "OS::Heat::None"}},
    }
    built = StackDefinition.build(source, {})
    assert built.dependencies == {"only": frozenset()}


def test_unknown_resource_type_names_its_path() -> None:
    source = TEMPLATE.replace("type: OS::Heat::None", "type: OS::Nova::Server")
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(source, {"password": "x"})
    assert isinstance(caught.value, ConvTasksError)
    assert problem_paths(caught.value) == ["resources.lb.type"]
    assert "OS::Nova::Server" in str(caught.value)


def test_every_unknown_type_is_reported() -> None:
    source = TEMPLATE.replace("OS::Heat::TestResource", "Custom::Thing")
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(source, {"password": "x"})
    assert sorted(problem_paths(caught.value)) == ["resources.db.type", "resources.web.type"]


def test_invalid_property_names_its_path() -> None:
    source = TEMPLATE.replace("wait_secs: {get_param: size}", "wait_secs: -5")
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(source, {"password": "x"})
    assert problem_paths(caught.value) == ["resources.web.properties.wait_secs"]


@pytest.mark.parametrize(
    ("parameters", "path"),
    [
        pytest.param({}, "parameters.password", id="missing"),
        pytest.param({"password": "x", "size": "big"}, "parameters.size", id="not-a-number"),
    ],
)
def test_bad_parameter_names_its_path(parameters: dict[str, Any], path: str) -> None:
    with pytest.raises(ParameterError) as caught:
        StackDefinition.build(TEMPLATE, parameters)
    assert isinstance(caught.value, ConvTasksError)
    assert problem_paths(caught.value) == [path]


def test_dependency_cycle_names_the_resources() -> None:
    source = """
heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::None, depends_on: [c]}
  b: {type: OS::Heat::None, depends_on: [a]}
  c: {type: OS::Heat::None, depends_on: [b]}
  free: {type: OS::Heat::None}
"""
    with pytest.raises(CycleError) as caught:
        StackDefinition.build(source, {})
    assert isinstance(caught.value, TemplateError)
    assert sorted(caught.value.cycle) == ["a", "b", "c"]
    assert problem_paths(caught.value) == ["resources"]
    message = str(caught.value)
    assert "circular dependency" in message
    for name in ("a", "b", "c"):
        assert name in message
    assert "free" not in message


def test_deprecated_type_gives_a_warning_not_an_error() -> None:
    source = """
heat_template_version: 2018-08-31
resources:
  legacy:
    type: OS::Heat::TestResourceOld
    properties: {value: kept}
"""
    built = StackDefinition.build(source, {})
    assert len(built.warnings) == 1
    warning = built.warnings[0]
    assert warning.startswith("resources.legacy: ")
    assert "DEPRECATED" in warning
    assert "OS::Heat::TestResource instead" in warning


# ------------------------------------------------------------------------- prepare


def test_prepare_resolves_get_attr_from_inputs(definition: StackDefinition) -> None:
    prepared = definition.prepare("web", {"db": ResourceData("db-1", {"output": "from-db"})})
    assert prepared.resource_type is TestResource
    assert prepared.resolved.name == "web"
    assert prepared.resolved.properties == {"value": "from-db", "wait_secs": 3}
    assert prepared.properties["value"] == "from-db"
    assert prepared.properties["wait_secs"] == 3
    # Schema defaults are filled in for properties the template leaves out.
    assert prepared.properties["fail"] is False
    assert prepared.properties["fail_on"] == []


def test_prepare_hash_follows_the_inputs(definition: StackDefinition) -> None:
    one = definition.prepare("web", {"db": ResourceData("db-1", {"output": "one"})})
    same = definition.prepare("web", {"db": ResourceData("db-1", {"output": "one"})})
    two = definition.prepare("web", {"db": ResourceData("db-1", {"output": "two"})})
    assert one.resolved.definition_hash == same.resolved.definition_hash
    assert one.resolved.definition_hash != two.resolved.definition_hash


def test_prepare_validates_resolved_properties() -> None:
    source = TEMPLATE.replace("wait_secs: {get_param: size}", "wait_secs: {get_attr: [db, output]}")
    built = StackDefinition.build(source, {"password": "x"})
    with pytest.raises(InvalidInput) as caught:
        built.prepare("web", {"db": ResourceData("db-1", {"output": "not a number"})})
    assert problem_paths(caught.value) == ["resources.web.properties.wait_secs"]


def test_prepare_unknown_resource_is_a_template_error(definition: StackDefinition) -> None:
    with pytest.raises(TemplateError, match="'nope' is not in the template"):
        definition.prepare("nope", {})


def test_outputs_resolve_against_inputs(definition: StackDefinition) -> None:
    outputs = definition.outputs({"web": ResourceData("web-1", {"physical_id": "phys-9"})})
    assert outputs["web_id"]["value"] == "phys-9"


# ------------------------------------------------------------------------- redaction


def test_redactor_masks_the_hidden_parameter_value(definition: StackDefinition) -> None:
    assert definition.redact("db said: bad password correct-horse") == (
        f"db said: bad password {MASK}"
    )


def test_redactor_leaves_visible_parameter_values(definition: StackDefinition) -> None:
    # size is not hidden: its value (3) stays readable.
    assert definition.redact("size 3") == "size 3"


def test_hidden_parameter_default_is_masked_too() -> None:
    source = TEMPLATE.replace(
        "password: {type: string, hidden: true}",
        "password: {type: string, hidden: true, default: swordfish}",
    )
    built = StackDefinition.build(source, {})
    assert built.redact("swordfish") == MASK
