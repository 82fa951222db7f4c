"""Provider templates in a definition and in validate: parameters the environment's
parameter_defaults set, Heat's resource.NAME attributes, and what a change of the files
changes (issue 25, item 3)."""

from __future__ import annotations

from typing import Any

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.validate import validate_template
from conv_tasks.template.environment import merge_environments

BOX = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
  label: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [{get_param: value}, {get_param: label}]]}
outputs:
  out: {value: {get_attr: [a, output]}}
"""

PARENT = """heat_template_version: 2018-08-31
resources:
  box:
    type: My::Box
    properties: {value: x}
outputs:
  out: {value: {get_attr: [box, out]}}
"""

REGISTRY = {"My::Box": "box.yaml"}


def _env(**extra: Any) -> dict[str, Any]:
    return {"resource_registry": REGISTRY, **extra}


def test_a_parameter_only_parameter_defaults_set_is_not_required() -> None:
    defaulted = _env(parameter_defaults={"label": "from-env"})
    result = validate_template(PARENT, environment=[defaulted], files={"box.yaml": BOX})
    assert result["valid"], result["errors"]
    definition = StackDefinition.build(
        PARENT, {}, files={"box.yaml": BOX}, environment=merge_environments([defaulted])
    )
    prepared = definition.prepare("box", {})
    schema = prepared.resource_type.properties_schema or {}
    assert not schema["label"].required and schema["value"].required
    # No value here (none is passed to the child): the child's parameter_defaults give it.
    assert prepared.properties == {"value": "x", "label": None}


def test_without_parameter_defaults_the_parameter_is_still_required() -> None:
    result = validate_template(PARENT, environment=[_env()], files={"box.yaml": BOX})
    assert [(e["path"], e["message"]) for e in result["errors"]] == [
        ("resources.box.properties.label", "is required but has no value.")
    ]


def _box_hash(files: dict[str, str], environment: dict[str, Any], name: str = "box") -> str:
    definition = StackDefinition.build(
        PARENT, {}, files=files, environment=merge_environments([environment])
    )
    return definition.prepare(name, {}).resolved.definition_hash


def test_a_new_text_of_the_provider_template_changes_the_definition() -> None:
    env = _env(parameter_defaults={"label": "e"})
    before = _box_hash({"box.yaml": BOX}, env)
    assert _box_hash({"box.yaml": BOX}, env) == before
    changed = BOX.replace("{get_param: label}", "changed")
    assert changed != BOX and _box_hash({"box.yaml": changed}, env) != before
    # What the child inherits besides: another file (a get_file of the child's), the
    # parameter_defaults, the stack-wide resource_registry.
    assert _box_hash({"box.yaml": BOX, "script.sh": "echo"}, env) != before
    assert _box_hash({"box.yaml": BOX}, _env(parameter_defaults={"label": "f"})) != before
    other = {**env, "resource_registry": {**REGISTRY, "My::Other": "OS::Heat::None"}}
    assert _box_hash({"box.yaml": BOX}, other) != before


def test_a_resource_without_a_child_stack_keeps_its_hash_whatever_the_files() -> None:
    plain = """heat_template_version: 2018-08-31
resources:
  r: {type: OS::Heat::TestResource, properties: {value: x}}
"""
    hashes = {
        StackDefinition.build(plain, {}, files=files).prepare("r", {}).resolved.definition_hash
        for files in ({}, {"a.txt": "1"}, {"a.txt": "2"})
    }
    assert len(hashes) == 1
