"""StackDefinition with environments and files: precedence, mapped types, the stored form."""

from __future__ import annotations

import json

import pytest

from conv_tasks.engine.definition.definitions import Definitions
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.stack_inputs import request_inputs, update_inputs
from conv_tasks.errors import ConvTasksError, InvalidEnvironment, ParameterError, TemplateError
from conv_tasks.resources import default_registry
from conv_tasks.template import ResourceData
from conv_tasks.template.environment import merge_environments

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  length: {type: number}
  label: {type: string, default: from-template}
  secret: {type: string, hidden: true, default: template-secret}
resources:
  token:
    type: My::Token
    properties:
      length: {get_param: length}
  noisy:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: label}
outputs:
  label:
    value: {get_param: label}
"""

ENVIRONMENTS = [
    {
        "parameter_defaults": {"length": 4, "label": "from-defaults", "unrelated": True},
        "resource_registry": {"My::Token": "OS::Heat::RandomString"},
    },
    {
        "parameters": {"label": "from-env"},
        "resource_registry": {"resources": {"noisy": {"OS::Heat::TestResource": "OS::Heat::None"}}},
    },
]


def build(parameters: dict[str, object], environments: list[object]) -> StackDefinition:
    return StackDefinition.build(TEMPLATE, parameters, environment=merge_environments(environments))


def test_types_are_mapped_before_the_registry_looks_them_up() -> None:
    definition = build({}, ENVIRONMENTS)
    assert definition.template.resources["token"].type == "OS::Heat::RandomString"
    assert definition.template.resources["noisy"].type == "OS::Heat::None"
    prepared = definition.prepare("noisy", {})
    assert prepared.resource_type.type_name == "OS::Heat::None"
    assert prepared.resolved.type == "OS::Heat::None"
    # the template as the user wrote it is what is stored
    assert definition.template.raw["resources"]["token"]["type"] == "My::Token"


def test_without_the_environment_an_unknown_alias_is_an_unknown_type() -> None:
    with pytest.raises(TemplateError) as exc:
        StackDefinition.build(TEMPLATE, {"length": 3})
    assert [p.path for p in exc.value.problems] == ["resources.token.type"]


def test_parameter_precedence() -> None:
    assert build({}, ENVIRONMENTS).parameters["label"] == "from-env"
    assert build({"label": "explicit"}, ENVIRONMENTS).parameters["label"] == "explicit"
    assert build({}, ENVIRONMENTS[:1]).parameters["label"] == "from-defaults"
    only_registry = [{"resource_registry": ENVIRONMENTS[0]["resource_registry"]}]
    assert build({"length": 1}, only_registry).parameters["label"] == "from-template"
    # a parameter_default satisfies a parameter the template gives no default
    assert build({}, ENVIRONMENTS).parameters["length"] == 4


def test_environment_values_are_checked_against_the_declaration() -> None:
    with pytest.raises(ParameterError) as exc:
        build({}, [*ENVIRONMENTS, {"parameters": {"length": "many"}}])
    assert "parameters.length" in [p.path for p in exc.value.problems]


def test_hidden_values_from_an_environment_are_redacted() -> None:
    definition = build({}, [*ENVIRONMENTS, {"parameters": {"secret": "env-secret-value"}}])
    assert "env-secret-value" not in definition.redact("failed with env-secret-value")


TOKEN_PROVIDER = """
heat_template_version: 2018-08-31
parameters:
  length: {type: number, default: 8}
resources:
  inner:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
outputs:
  value:
    value: {get_attr: [inner, value]}
"""


def test_a_provider_template_implements_its_type_with_the_file_as_type() -> None:
    environment = merge_environments([{"resource_registry": {"My::Token": "token.yaml"}}])
    definition = StackDefinition.build(
        TEMPLATE, {"length": 3}, files={"token.yaml": TOKEN_PROVIDER}, environment=environment
    )
    assert definition.template.resources["token"].type == "token.yaml"
    prepared = definition.prepare("token", {})
    # The provider's parameters are the type's properties, its outputs its attributes.
    assert prepared.properties == {"length": 3}
    assert set(prepared.resource_type.attributes_schema) == {"value", "OS::stack_id"}
    assert definition.types is not None and "token.yaml" in definition.types
    # Only this stack knows the type: the process-wide registry does not.
    assert "token.yaml" not in default_registry()


def test_a_provider_template_that_does_not_load_or_does_not_fit_is_refused() -> None:
    environment = merge_environments([{"resource_registry": {"My::Token": "token.yaml"}}])
    with pytest.raises(TemplateError) as exc:
        StackDefinition.build(
            TEMPLATE, {"length": 1}, files={"token.yaml": "{}"}, environment=environment
        )
    [problem] = exc.value.problems
    assert problem.path == "resources.token.type"
    assert "'My::Token'" in problem.message and "does not load" in problem.message
    no_length = "heat_template_version: 2018-08-31\nparameters:\n  size: {type: number}\n"
    with pytest.raises(ConvTasksError) as failed:
        StackDefinition.build(
            TEMPLATE, {"length": 1}, files={"token.yaml": no_length}, environment=environment
        )
    problems = {p.path: p.message for p in failed.value.problems}  # type: ignore[attr-defined]
    # length is not a property of the provider's type (its value, a get_param, is no
    # excuse); its required size is missing
    assert problems["resources.token.properties.length"] == (
        "is not a known property; known properties: size."
    )
    assert "resources.token.properties.size" in problems


def test_files_travel_with_the_definition_and_are_checked() -> None:
    definition = StackDefinition.build(
        TEMPLATE,
        {"length": 2},
        files={"a.txt": "hello"},
        environment=merge_environments(ENVIRONMENTS[:1]),
    )
    assert definition.files == {"a.txt": "hello"}
    with pytest.raises(InvalidEnvironment):
        StackDefinition.build(TEMPLATE, {"length": 2}, files={"a.txt": 1})  # type: ignore[dict-item]


def test_a_stored_row_builds_the_same_definition() -> None:
    inputs = request_inputs(ENVIRONMENTS, {"f.txt": "x"})
    environment, files = inputs.stored()
    template = json.dumps(
        StackDefinition.build(TEMPLATE, {}, environment=inputs.environment).template.raw
    )
    definitions = Definitions(10 * 2**20)
    loaded = definitions.get(
        7, lambda _: (template, "{}", json.dumps(environment), json.dumps(files))
    )
    assert loaded.template.resources["noisy"].type == "OS::Heat::None"
    assert loaded.parameters["label"] == "from-env"
    assert loaded.files == {"f.txt": "x"}
    assert loaded.outputs({"token": ResourceData("t"), "noisy": ResourceData("n")}) == {
        "label": {"value": "from-env", "description": ""}
    }


def test_an_update_keeps_or_replaces_the_environment() -> None:
    stored_env, stored_files = request_inputs(ENVIRONMENTS, {"a": "1"}).stored()
    patch = [{"parameters": {"label": "patched"}}]
    kept = update_inputs(stored_env, stored_files, patch, {"b": "2"}, keep=True)
    assert kept.environment.parameters == {"label": "patched"}
    assert kept.environment.registry == {"My::Token": "OS::Heat::RandomString"}
    assert kept.files == {"a": "1", "b": "2"}
    replaced = update_inputs(stored_env, stored_files, patch, {"b": "2"}, keep=False)
    assert replaced.environment.registry == {}
    assert replaced.files == {"b": "2"}


def test_a_disabled_resource_gives_any_attribute_as_none() -> None:
    from conv_tasks.resources.builtin.none import NoneResource
    from conv_tasks.resources.builtin.test_resource import TestResource

    wanted = frozenset({"output", "anything"})
    assert NoneResource().picked_attributes({}, wanted) == {"output": None, "anything": None}
    # other types leave out what they do not have
    assert TestResource().picked_attributes({"output": "x"}, wanted) == {"output": "x"}
