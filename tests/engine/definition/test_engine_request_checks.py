"""Errors Heat refuses when a stack is created are refused at the request, by `template
validate` (with the line) and by a definition built for a request alike: known calls that
fail, an OS::Heat::Value of the wrong type, resource_facade in a top-level stack, a group
member's template with an error, and a limit broken two nested stacks down (issue 25,
item 6). A stored template (no constraints) still builds."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from conv_tasks.constraints import installed_checkers
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.validate import validate_template
from conv_tasks.errors import TemplateError
from conv_tasks.resources import build_registry
from conv_tasks.sdk import MAP, ChildTemplateSource, PropertySchema, ResourceType
from conv_tasks.template.environment import merge_environments
from tests.refused_templates import DEEP, ENVIRONMENT, FACADE, FILES, GROUP, HEAD, STRICT, VALUE

# (template, with the group's environment, (path, line, words in the message))
CASES: list[tuple[str, bool, tuple[str, int, str]]] = [
    (
        STRICT,
        False,
        ("resources.x.properties.value.str_replace_strict.params.$missing", 10, "$missing"),
    ),
    (VALUE, False, ("resources.x.properties.value", 7, "does not fit the type 'number'")),
    (FACADE, False, ("resources.x.properties.value.resource_facade", 6, "nested stack")),
    (
        DEEP,
        False,
        (
            "resources.outer.properties.template",
            6,
            "resources.inner.properties.template: the nested template (inline) is refused: "
            "resources.wait.properties.wait_secs: must be between 0 and 3600",
        ),
    ),
    (
        GROUP,
        True,
        (
            "resources.g.properties.resource_def.type",
            8,
            "'member.yaml' is refused: resources.m.properties.value.str_split: index 7",
        ),
    ),
]

IDS = ["str_replace_strict", "value_type", "facade", "nested_limit", "group"]


def _inputs(with_group: bool) -> dict[str, Any]:
    return {"environment": [ENVIRONMENT], "files": FILES} if with_group else {}


@pytest.mark.parametrize(("source", "with_group", "expected"), CASES, ids=IDS)
def test_validate_refuses_with_the_path_and_the_line(
    source: str, with_group: bool, expected: tuple[str, int, str]
) -> None:
    result = validate_template(source, **_inputs(with_group))
    path, line, words = expected
    ((error),) = result["errors"]
    assert (error["path"], error["line"]) == (path, line)
    assert words in error["message"]


@pytest.mark.parametrize(("source", "with_group", "expected"), CASES, ids=IDS)
def test_a_request_is_refused_with_the_same_path(
    source: str, with_group: bool, expected: tuple[str, int, str]
) -> None:
    environment = merge_environments([ENVIRONMENT]) if with_group else None
    files = FILES if with_group else None
    with pytest.raises(TemplateError) as refused:
        StackDefinition.build(
            source, {}, files=files, environment=environment, constraints=installed_checkers()
        )
    ((problem),) = refused.value.problems
    assert problem.path == expected[0]
    assert expected[2] in problem.message


def test_a_stored_template_still_builds() -> None:
    # Accepted before these checks: a stack that holds one must still load.
    StackDefinition.build(STRICT, {})
    StackDefinition.build(DEEP, {})


def test_a_group_of_zero_members_is_accepted() -> None:
    zero = GROUP.replace("count: 2", "count: 0")
    assert validate_template(zero, **_inputs(True))["valid"]


def test_a_value_known_only_at_apply_is_accepted() -> None:
    waits = (
        HEAD
        + """resources:
  a:
    type: OS::Heat::TestResource
  x:
    type: OS::Heat::Value
    properties:
      type: number
      value: {get_attr: [a, output]}
  y:
    type: OS::Heat::Value
    properties:
      value: {str_replace_strict: {template: {get_attr: [a, output]}, params: {$k: v}}}
"""
    )
    assert validate_template(waits)["valid"]


def test_a_parameter_value_given_decides_a_known_call() -> None:
    split = (
        HEAD
        + """parameters:
  text: {type: string, default: 'a,b,c'}
resources:
  x:
    type: OS::Heat::Value
    properties:
      value: {str_split: [',', {get_param: text}, 2]}
"""
    )
    assert validate_template(split)["valid"]
    (error,) = validate_template(split, {"text": "a"})["errors"]
    assert error["path"] == "resources.x.properties.value.str_split"
    with pytest.raises(TemplateError):
        StackDefinition.build(split, {"text": "a"}, constraints=installed_checkers())


def test_resource_facade_in_a_nested_template_is_accepted() -> None:
    child = (
        HEAD
        + """resources:
  v:
    type: OS::Heat::Value
    properties:
      value: {resource_facade: metadata}
"""
    )
    nested = HEAD + "resources:\n  s:\n    type: OS::Heat::Stack\n    properties:\n"
    nested += f"      template: {json.dumps(child)}\n"
    assert validate_template(nested)["valid"], validate_template(nested)["errors"]
    StackDefinition.build(nested, {}, constraints=installed_checkers())


class _Wrapper(ResourceType):
    """A type of some other package, implemented by a child stack it writes itself: it is no
    subclass of a built-in type; it says where its child's template is (SDK 1.3)."""

    type_name: ClassVar[str] = "Example::Wrapper"
    owns_child_stack: ClassVar[bool] = True
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "inner": PropertySchema(MAP, "The child's template.", required=True)
    }

    @classmethod
    def child_template_source(cls, properties: Mapping[str, Any]) -> ChildTemplateSource | None:
        inner = properties.get("inner")
        return ChildTemplateSource("inner", template=inner) if isinstance(inner, Mapping) else None


def test_the_engine_checks_the_child_template_any_type_says_it_has() -> None:
    # The engine asks the type (child_template_source), never which built-in class it is.
    registry = build_registry()
    registry.register(_Wrapper)
    child = {
        "heat_template_version": "2018-08-31",
        "resources": {"wait": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": -1}}},
    }
    source = HEAD + "resources:\n  w:\n    type: Example::Wrapper\n    properties:\n"
    source += f"      inner: {json.dumps(child)}\n"
    result = validate_template(source, registry=registry)
    ((error),) = result["errors"]
    assert error["path"] == "resources.w.properties.inner"
    assert (
        "the nested template (inline) is refused: resources.wait.properties.wait_secs"
        in (error["message"])
    )
