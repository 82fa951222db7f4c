"""Heat's pseudo-parameters (OS::stack_name, OS::stack_id, OS::project_id): any template may
get_param them undeclared; a request may not give them; a definition built without a stack
sees placeholders."""

from __future__ import annotations

import pytest

from conv_tasks.engine.definition import StackDefinition
from conv_tasks.errors import ParameterError, TemplateError
from conv_tasks.template import (
    PLACEHOLDERS,
    StackIdentity,
    load_template,
    refuse_given,
    with_identity,
    without_pseudo,
)

NAMED = {
    "heat_template_version": "2018-08-31",
    "conditions": {"is_prod": {"equals": [{"get_param": "OS::stack_name"}, "prod"]}},
    "resources": {
        "label": {
            "type": "OS::Heat::Value",
            "properties": {
                "value": {
                    "list_join": [
                        "/",
                        [
                            {"get_param": "OS::project_id"},
                            {"get_param": "OS::stack_name"},
                            {"get_param": "OS::stack_id"},
                        ],
                    ]
                }
            },
        }
    },
    "outputs": {
        "prod": {"value": {"if": ["is_prod", "yes", "no"]}},
        "id": {"value": {"get_param": "OS::stack_id"}},
    },
}


def test_a_template_may_get_param_the_pseudo_parameters_undeclared() -> None:
    template = load_template(NAMED)
    assert "OS::stack_name" not in template.parameters  # not declared: no schema of its own


def test_an_undeclared_parameter_that_only_looks_like_one_is_still_refused() -> None:
    document = {
        "heat_template_version": "2018-08-31",
        "outputs": {"x": {"value": {"get_param": "OS::stack_nam"}}},
    }
    with pytest.raises(TemplateError) as info:
        load_template(document)
    assert "outputs.x" in str(info.value) and "OS::stack_nam" in str(info.value)


def test_the_definition_resolves_them_to_the_stacks_own_values() -> None:
    identity = StackIdentity("prod", "6f1c2a9e-0000-4000-8000-000000000001", "acme")
    definition = StackDefinition.build(NAMED, with_identity({}, identity))
    resolved = definition.prepare("label", {}).resolved
    assert resolved.properties["value"] == "acme/prod/6f1c2a9e-0000-4000-8000-000000000001"
    assert definition.parameters["OS::stack_name"] == "prod"


def test_without_a_stack_the_definition_sees_placeholders() -> None:
    definition = StackDefinition.build(NAMED, {})
    resolved = definition.prepare("label", {}).resolved
    expected = "/".join(
        PLACEHOLDERS[name] for name in ("OS::project_id", "OS::stack_name", "OS::stack_id")
    )
    assert resolved.properties["value"] == expected


def test_a_condition_reads_the_stack_name() -> None:
    prod = StackDefinition.build(NAMED, with_identity({}, StackIdentity("prod", "i", "t")))
    other = StackDefinition.build(NAMED, with_identity({}, StackIdentity("dev", "i", "t")))
    assert prod.outputs({})["prod"]["value"] == "yes"
    assert other.outputs({})["prod"]["value"] == "no"


def test_a_request_giving_one_is_refused_by_name() -> None:
    with pytest.raises(ParameterError) as info:
        refuse_given({"OS::stack_id": "forged", "size": 1})
    assert "parameters.OS::stack_id" in str(info.value)
    assert "pseudo-parameter" in str(info.value)
    refuse_given({"size": 1})  # anything else passes


def test_the_identity_replaces_stored_values_and_can_be_taken_off() -> None:
    stored = {"size": 1, "OS::stack_name": "old-name"}
    values = with_identity(stored, StackIdentity("new-name", "id", "t"))
    assert values["OS::stack_name"] == "new-name"
    assert without_pseudo(values) == {"size": 1}
