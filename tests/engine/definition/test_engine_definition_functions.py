"""StackDefinition.build with conditions, files and a facade; Definitions pass stored files;
template validate still checks every resource whatever the conditions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conv_tasks.engine.definition.definitions import Definitions
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.validate import validate_template
from conv_tasks.errors import TemplateError
from conv_tasks.template import ResourceData

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  env: {type: string, default: dev}
conditions:
  prod: {equals: [{get_param: env}, prod]}
resources:
  db:
    type: OS::Heat::TestResource
    condition: prod
  web:
    type: OS::Heat::Value
    depends_on: [db]
    properties:
      value:
        script: {get_file: boot.sh}
        db: {if: [prod, {get_attr: [db]}, none]}
outputs:
  db:
    value: {get_resource: db}
    condition: prod
"""
FILES = {"boot.sh": "echo hi"}


def test_conditions_are_applied_before_dependencies() -> None:
    dev = StackDefinition.build(TEMPLATE, {}, files=FILES)
    assert set(dev.template.resources) == {"web"}
    assert dev.dependencies == {"web": frozenset()}
    prod = StackDefinition.build(TEMPLATE, {"env": "prod"}, files=FILES)
    assert prod.dependencies == {"db": frozenset(), "web": frozenset({"db"})}


def test_get_attr_of_every_attribute_needs_every_attribute_of_the_type() -> None:
    prod = StackDefinition.build(TEMPLATE, {"env": "prod"}, files=FILES)
    assert prod.attributes_needed["db"] == frozenset({"output", "physical_id"})
    inputs = {"db": ResourceData("db-1", {"output": "o", "physical_id": "p"})}
    prepared = prod.prepare("web", inputs)
    assert prepared.properties["value"] == {
        "script": "echo hi",
        "db": {"output": "o", "physical_id": "p"},
    }


def test_outputs_of_a_left_out_condition_are_none() -> None:
    dev = StackDefinition.build(TEMPLATE, {}, files=FILES)
    assert dev.outputs({})["db"]["value"] is None


def test_files_are_needed_for_get_file() -> None:
    with pytest.raises(TemplateError, match=r"file 'boot\.sh' is not among the files"):
        StackDefinition.build(TEMPLATE, {})


def test_facade_is_given_to_resource_facade() -> None:
    provider = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"resource_facade": "metadata"}},
            }
        },
    }
    with pytest.raises(TemplateError, match="works only in a template used as a nested stack"):
        StackDefinition.build(provider, {})
    built = StackDefinition.build(provider, {}, facade={"metadata": {"k": "v"}})
    assert built.prepare("v", {}).properties["value"] == {"k": "v"}


def test_a_condition_naming_a_bad_parameter_value_is_an_error_with_a_path() -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "parameters": {"flag": {"type": "string", "hidden": True}},
        "conditions": {"on": {"get_param": "flag"}},
        "resources": {"v": {"type": "OS::Heat::None", "condition": "on"}},
    }
    with pytest.raises(TemplateError) as info:
        StackDefinition.build(template, {"flag": "yes"})
    assert [str(p) for p in info.value.problems] == [
        "resources.v.condition: condition 'on' must come out true or false, not a str value"
    ]
    template["conditions"] = {"on": {"not": {"get_param": "flag"}}}
    with pytest.raises(TemplateError) as info:
        StackDefinition.build(template, {"flag": "s3cret"})
    assert "s3cret" not in str(info.value)
    assert "neither true, false nor the name of a condition" in str(info.value)


def test_definitions_pass_the_stored_files() -> None:
    definitions = Definitions(10 * 2**20)
    text = json.dumps(StackDefinition.build(TEMPLATE, {}, files=FILES).template.raw)

    def load(template_id: int) -> tuple[str, str, str, str] | None:
        return text, json.dumps({"env": "prod"}), "{}", json.dumps(FILES)

    built = definitions.get(1, load)
    assert set(built.template.resources) == {"db", "web"}
    raw: dict[str, Any] = json.loads(text)
    assert set(definitions.of(2, raw, {}, files=FILES).template.resources) == {"web"}


def test_validate_checks_resources_that_a_condition_would_leave_out() -> None:
    template = TEMPLATE.replace("type: OS::Heat::TestResource", "type: OS::Nope::Missing")
    result = validate_template(template, {}, files=FILES)
    assert result["valid"] is False
    assert [e["path"] for e in result["errors"]] == ["resources.db.type"]
    assert "OS::Nope::Missing" in result["errors"][0]["message"]
    # Every resource is in the order, whatever its condition would decide.
    assert validate_template(TEMPLATE, {}, files=FILES)["order"] == ["db", "web"]
