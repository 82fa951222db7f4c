"""validate_template: eleven broken templates, each error reported with its line and column."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.definition.validate import locate, validate_template

HEAD = "heat_template_version: 2018-08-31\n"

# (name, template, parameters, (path, line, column, words in the message))
BROKEN: list[tuple[str, str, dict[str, Any], tuple[str, int, int, str]]] = [
    (
        "bad get_attr attribute",
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n"
        "  b:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      value: {get_attr: [a, nosuch]}\n",
        {},
        ("resources.b.properties.value.get_attr", 8, 15, "has no attribute 'nosuch'"),
    ),
    (
        "unknown type",
        HEAD + "resources:\n  a:\n    type: No::Such\n",
        {},
        ("resources.a.type", 4, 5, "unknown resource type 'No::Such'"),
    ),
    (
        "cycle",
        HEAD + "resources:\n  a:\n    type: OS::Heat::None\n    depends_on: b\n"
        "  b:\n    type: OS::Heat::None\n    depends_on: a\n",
        {},
        ("resources.a", 3, 3, "circular dependency"),
    ),
    (
        "unknown property",
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      valeu: x\n",
        {},
        ("resources.a.properties.valeu", 6, 7, "not a known property"),
    ),
    (
        "unknown function argument shape",
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      value: {get_attr: 3}\n",
        {},
        ("resources.a.properties.value.get_attr", 6, 15, "must be a list"),
    ),
    (
        "get_param of an undeclared parameter",
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      value: {get_param: nope}\n",
        {},
        ("resources.a.properties.value.get_param", 6, 15, "'nope' is not declared"),
    ),
    (
        "depends_on an undefined resource",
        HEAD + "resources:\n  a:\n    type: OS::Heat::None\n    depends_on: [ghost]\n",
        {},
        ("resources.a.depends_on.0", 5, 18, "'ghost' is not defined"),
    ),
    (
        "bad parameter type",
        HEAD + "parameters:\n  p:\n    type: strnig\nresources: {}\n",
        {},
        ("parameters.p.type", 4, 5, "must be one of"),
    ),
    (
        "parameter value breaks its constraint",
        HEAD + "parameters:\n  size:\n    type: number\n    constraints:\n"
        "      - range: {min: 1, max: 5}\nresources: {}\n",
        {"size": 9},
        ("parameters.size", 3, 3, "between 1 and 5"),
    ),
    (
        "property of the wrong type",
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      fail: [not, a, boolean]\n",
        {},
        ("resources.a.properties.fail", 6, 7, ""),
    ),
    (
        "YAML syntax error",
        HEAD + "resources:\n  a: [unclosed\n",
        {},
        ("", 4, 1, "line 4, column 1"),
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "parameters", "expected"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_each_broken_template_reports_its_error_with_line_and_column(
    name: str, text: str, parameters: dict[str, Any], expected: tuple[str, int, int, str]
) -> None:
    result = validate_template(text, parameters)
    assert result["valid"] is False
    path, line, column, words = expected
    found = [(e["path"], e["line"], e["column"]) for e in result["errors"]]
    assert (path, line, column) in found, result["errors"]
    error = next(e for e in result["errors"] if e["path"] == path)
    assert words in error["message"]
    assert all(e["line"] is not None for e in result["errors"]), result["errors"]


def test_every_error_of_one_template_is_reported_at_once() -> None:
    text = (
        HEAD + "parameters:\n  flavor: {type: string}\nresources:\n"
        "  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      value: {get_param: flavor}\n      bogus: 1\n"
        "  b:\n    type: No::Such\n"
        "outputs:\n  o:\n    value: {get_attr: [a, nosuch]}\n"
    )
    result = validate_template(text)
    assert [(e["path"], e["line"]) for e in result["errors"]] == [
        ("resources.a.properties.bogus", 9),
        ("resources.b.type", 11),
        ("outputs.o.value.get_attr", 14),
    ]


def test_types_and_properties_are_checked_even_when_a_function_is_broken() -> None:
    text = (
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      value: {get_param: nope}\n      bogus: 1\n"
        "  b:\n    type: No::Such\n"
    )
    result = validate_template(text)
    assert [(e["path"], e["line"]) for e in result["errors"]] == [
        ("resources.a.properties.value.get_param", 6),
        ("resources.a.properties.bogus", 7),
        ("resources.b.type", 9),
    ]


def test_a_missing_parameter_value_is_not_an_error() -> None:
    text = HEAD + "parameters:\n  flavor: {type: string}\nresources: {}\n"
    assert validate_template(text) == {
        "valid": True,
        "errors": [],
        "warnings": [],
        "order": [],
        "dependencies": {},
        "types": {},
    }


def test_a_known_attribute_passes_and_order_is_given() -> None:
    text = (
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n"
        "  b:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      value: {get_attr: [a, output]}\n"
    )
    result = validate_template(text)
    assert result["valid"] is True, result["errors"]
    assert result["order"] == ["a", "b"]


def test_a_type_with_dynamic_attributes_is_not_checked() -> None:
    text = (
        HEAD + "resources:\n  config:\n    type: OS::Heat::SoftwareConfig\n"
        "    properties: {config: echo}\n"
        "  deploy:\n    type: OS::Heat::SoftwareDeployment\n"
        "    properties: {config: {get_resource: config}, server: srv}\n"
        "outputs:\n  o:\n    value: {get_attr: [deploy, my_output]}\n"
    )
    result = validate_template(text)
    assert not [e for e in result["errors"] if "attribute" in e["message"]], result["errors"]


def test_a_mapping_template_has_errors_without_positions() -> None:
    document = {"heat_template_version": "2018-08-31", "resources": {"a": {"type": "No::Such"}}}
    result = validate_template(document)
    assert [(e["path"], e["line"], e["column"]) for e in result["errors"]] == [
        ("resources.a.type", None, None)
    ]


def test_locate_falls_back_to_the_nearest_written_path() -> None:
    marks = {"resources": (2, 1), "resources.a": (3, 3)}
    assert locate("resources.a.properties.x", marks) == (3, 3)
    assert locate("outputs.o", marks) is None


# It loads: every resource is checked, with its types, properties and attributes.
SUGGESTED = f"""{HEAD}parameters:
  size: {{type: number, default: 1}}
resources:
  pw:
    type: OS::Heat::RandomStrng
  tr:
    type: OS::Heat::TestResource
    properties:
      valeu: {{get_param: size}}
  other:
    type: OS::Heat::TestResource
    properties:
      value: {{get_attr: [tr, outptu]}}
      fail_on: {{list_jion: [",", []]}}
    metadata:
      note: {{get_atr: [tr, output]}}
"""
# It does not load: its references are wrong.
REFERENCES = f"""{HEAD}parameters:
  size: {{type: number, default: 1}}
resources:
  pw:
    type: OS::Heat::None
  tr:
    type: OS::Heat::TestResource
    depends_on: [pww]
    properties:
      value: {{get_param: sise}}
"""


def test_misspelt_names_get_the_nearest_known_one() -> None:
    result = validate_template(SUGGESTED, {"lenght": 3})
    messages = {e["path"]: e["message"] for e in result["errors"]}
    assert messages == {
        "parameters.lenght": "is not a parameter of this template",  # nothing near it
        "resources.pw.type": (
            "unknown resource type 'OS::Heat::RandomStrng'; did you mean 'OS::Heat::RandomString'?"
        ),
        "resources.tr.properties.valeu": "is not a known property; did you mean 'value'?",
        "resources.other.properties.value.get_attr": (
            "resource 'tr' (OS::Heat::TestResource) has no attribute 'outptu'; "
            "did you mean 'output'?"
        ),
        "resources.other.properties.fail_on": (
            "must be a list, not a map ('list_jion' is not a function; did you mean 'list_join'?)."
        ),
    }
    # Where a misspelt function is taken as data without an error, a warning says so.
    assert result["warnings"] == [
        "resources.other.metadata.note: 'get_atr' is not a function; did you mean 'get_attr'? "
        "(as written, the map is data)"
    ]
    assert validate_template(SUGGESTED, {"siz": 3})["errors"][0]["message"] == (
        "is not a parameter of this template; did you mean 'size'?"
    )
    messages = {e["path"]: e["message"] for e in validate_template(REFERENCES)["errors"]}
    assert messages == {
        "resources.tr.depends_on.0": (
            "resource 'pww' is not defined in the template; did you mean 'pw'?"
        ),
        "resources.tr.properties.value.get_param": (
            "parameter 'sise' is not declared; did you mean 'size'?"
        ),
    }


def test_with_nothing_near_the_names_are_listed_as_before() -> None:
    result = validate_template(
        HEAD + "resources:\n  a:\n    type: OS::Heat::TestResource\n    properties:\n"
        "      colour: x\n  b:\n    type: Custom::Thing\n"
    )
    messages = {e["path"]: e["message"] for e in result["errors"]}
    assert messages["resources.a.properties.colour"].startswith(
        "is not a known property; known properties: action_timeout_secs, "
    )
    assert messages["resources.b.type"] == (
        "unknown resource type 'Custom::Thing'; see `conv-tasks resource-type list`."
    )
