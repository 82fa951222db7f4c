"""external_id on a resource, before anything runs (issue 25, item 8): accepted as a string
or a function giving one (2016-10-14 on), refused for a type that cannot observe, naming the
resource, the type and the key with its line; resolved with the parameters, and not part of
the definition hash."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.validate import validate_template
from conv_tasks.errors import TemplateError
from conv_tasks.template import load_template, resolve_resource

OBSERVES = "OS::Heat::TestResource"  # its observe reads the sandbox object
BLIND = "OS::Heat::RandomString"  # no observe


def _template(resources: dict[str, Any], version: str = "2018-08-31", **extra: Any) -> Any:
    return {"heat_template_version": version, "resources": resources, **extra}


def _errors(template: Any) -> dict[str, str]:
    result = validate_template(template)
    return {e["path"]: e["message"] for e in result["errors"]}


def test_a_string_external_id_is_accepted_and_resolved() -> None:
    template = _template({"r": {"type": OBSERVES, "external_id": "obj-1"}})
    assert _errors(template) == {}
    resolved = resolve_resource(load_template(template), "r", {}, {})
    assert resolved.external_id == "obj-1"


def test_external_id_may_come_from_a_parameter() -> None:
    template = _template(
        {"r": {"type": OBSERVES, "external_id": {"get_param": "existing"}}},
        parameters={"existing": {"type": "string"}},
    )
    assert _errors(template) == {}
    definition = StackDefinition.build(template, {"existing": "obj-7"})
    resolved = resolve_resource(definition.template, "r", definition.parameters, {})
    assert resolved.external_id == "obj-7"


def test_a_parameter_that_gives_no_string_fails_the_resolution_by_path() -> None:
    template = _template(
        {"r": {"type": OBSERVES, "external_id": {"get_param": "n"}}},
        parameters={"n": {"type": "number", "default": 3}},
    )
    definition = StackDefinition.build(template, {})
    with pytest.raises(TemplateError) as caught:
        resolve_resource(definition.template, "r", definition.parameters, {})
    assert "resources.r.external_id" in str(caught.value)


def test_external_id_is_not_part_of_the_definition_hash() -> None:
    plain = resolve_resource(load_template(_template({"r": {"type": OBSERVES}})), "r", {}, {})
    adopting = resolve_resource(
        load_template(_template({"r": {"type": OBSERVES, "external_id": "x"}})), "r", {}, {}
    )
    assert plain.definition_hash == adopting.definition_hash
    assert plain.external_id is None


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (3, "must be a non-empty string"),
        ("", "must be a non-empty string"),
        (["a"], "must be a non-empty string"),
        ({"get_resource": "other"}, "must not refer to another resource"),
        ({"get_attr": ["other", "output"]}, "must not refer to another resource"),
        ({"get_param": "undeclared"}, "undeclared"),
    ],
)
def test_a_bad_external_id_is_refused_by_path(value: Any, words: str) -> None:
    template = _template({"r": {"type": OBSERVES, "external_id": value}, "other": {"type": BLIND}})
    errors = _errors(template)
    assert "resources.r.external_id" in next(iter(errors)), errors
    assert any(words in message for message in errors.values()), errors
    with pytest.raises(TemplateError):
        load_template(template)


def test_external_id_needs_the_2016_10_14_template_version() -> None:
    errors = _errors(_template({"r": {"type": OBSERVES, "external_id": "x"}}, "2016-04-08"))
    assert list(errors) == ["resources.r.external_id"]
    assert "2016-10-14" in errors["resources.r.external_id"]


def test_a_type_that_cannot_observe_is_refused_by_name_with_its_line() -> None:
    text = (
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  token:\n"
        f"    type: {BLIND}\n"
        "    external_id: abc\n"
    )
    result = validate_template(text)
    assert result["valid"] is False
    [error] = result["errors"]
    assert error["path"] == "resources.token.external_id"
    assert error["line"] == 5
    assert f"'{BLIND}' cannot observe" in error["message"]
    assert "remove external_id" in error["message"]
    # A create, update or preview builds the stack's definition: refused there too.
    with pytest.raises(TemplateError) as caught:
        StackDefinition.build(text, {})
    assert "resources.token.external_id" in str(caught.value)


@pytest.mark.parametrize(
    ("type_name", "kind"),
    [("ConvTasks::PostgreSQL::Role", "roles"), ("ConvTasks::PostgreSQL::Database", "databases")],
)
def test_a_type_that_observes_only_its_own_objects_says_why_it_cannot_adopt(
    type_name: str, kind: str
) -> None:
    spec = {"type": type_name, "external_id": "app", "properties": {"name": "app"}}
    errors = _errors(_template({"db": spec}))
    message = errors["resources.db.external_id"]
    assert f"'{type_name}' cannot adopt an existing object" in message
    assert f"only on the {kind} its resources made and marked" in message
    assert "remove external_id" in message
