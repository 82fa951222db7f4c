"""load_template: parsing, structure and the problems it reports."""

from __future__ import annotations

import datetime
import json

import pytest

from conv_tasks.errors import ConvTasksError, TemplateError
from conv_tasks.template import Template, load_template

VALID = """
heat_template_version: 2018-08-31
description: A small stack
parameters:
  flavor:
    type: string
    default: small
    label: Flavor
    description: The size
resources:
  net:
    type: Test::Net
    properties:
      cidr: 10.0.0.0/24
  web:
    type: Test::Server
    depends_on: net
    metadata: {role: web}
    deletion_policy: Retain
    properties:
      flavor: {get_param: flavor}
outputs:
  addr:
    value: {get_attr: [web, ip]}
    description: The address
"""


def problems_of(source: object) -> list[str]:
    with pytest.raises(TemplateError) as info:
        load_template(source)  # type: ignore[arg-type]
    return [str(p) for p in info.value.problems]


def test_valid_template_loads_into_model() -> None:
    template = load_template(VALID)
    assert isinstance(template, Template)
    assert template.version == "2018-08-31"
    assert template.description == "A small stack"
    assert list(template.resources) == ["net", "web"]
    web = template.resources["web"]
    assert web.type == "Test::Server"
    assert web.depends_on == ("net",)
    assert web.deletion_policy == "Retain"
    assert web.metadata == {"role": "web"}
    assert web.properties == {"flavor": {"get_param": "flavor"}}
    assert template.resources["net"].deletion_policy == "Delete"
    flavor = template.parameters["flavor"]
    assert (flavor.type, flavor.default, flavor.has_default) == ("string", "small", True)
    assert (flavor.label, flavor.description) == ("Flavor", "The size")
    assert template.outputs["addr"].description == "The address"
    assert template.outputs["addr"].value == {"get_attr": ["web", "ip"]}


def test_raw_is_json_serialisable_and_reloads() -> None:
    template = load_template(VALID)
    text = json.dumps(template.raw)
    again = load_template(json.loads(text))
    assert again.resources == template.resources


def test_mapping_source_with_date_version() -> None:
    template = load_template(
        {"heat_template_version": datetime.date(2016, 10, 14), "resources": {}}
    )
    assert template.version == "2016-10-14"
    assert template.raw["heat_template_version"] == "2016-10-14"


def test_bytes_source() -> None:
    assert load_template(VALID.encode()).version == "2018-08-31"


@pytest.mark.parametrize(
    ("written", "normalised"),
    [
        ("2013-05-23", "2013-05-23"),
        ("2021-04-16", "2021-04-16"),
        ("rocky", "2018-08-31"),
        ("newton", "2016-10-14"),
        ("wallaby", "2021-04-16"),
    ],
)
def test_versions_accepted(written: str, normalised: str) -> None:
    template = load_template(f"heat_template_version: {written}\n")
    assert template.version == normalised
    assert template.raw["heat_template_version"] == written


def test_unknown_version() -> None:
    [problem] = problems_of("heat_template_version: 2019-01-01\n")
    assert problem.startswith("heat_template_version: '2019-01-01' is not a known version")


def test_version_required() -> None:
    assert problems_of("resources: {}\n") == ["heat_template_version: is required"]


def test_yaml_syntax_error_has_line_and_column() -> None:
    with pytest.raises(TemplateError) as info:
        load_template("heat_template_version: 2018-08-31\nresources:\n  a: b: c\n")
    assert "template line 3, column 7" in str(info.value)


def test_yaml_syntax_error_uses_filename() -> None:
    with pytest.raises(TemplateError, match=r"web\.yaml line 1, column 5: mapping values"):
        load_template("a: b: c\n", filename="web.yaml")


@pytest.mark.parametrize("source", ["- a\n- b\n", "just text", "", 42])
def test_document_must_be_a_mapping(source: object) -> None:
    with pytest.raises(TemplateError, match=r"must be a mapping|must be YAML text"):
        load_template(source)  # type: ignore[arg-type]


def test_all_problems_are_reported_together() -> None:
    source = """
heat_template_version: 2018-08-31
description: [not, text]
colour: blue
parameters:
  p: {type: float}
resources:
  a:
    type: T
    properties: [1]
    deletion_policy: Snapshot
    creation_policy: {}
  b:
    properties: {}
  c:
    type: T
    depends_on: [c, zz, 3]
outputs:
  o: {description: nothing}
"""
    assert problems_of(source) == [
        "colour: unknown top-level key; expected one of heat_template_version, description, "
        "parameters, parameter_groups, resources, outputs, conditions",
        "description: must be a string",
        "parameters.p.type: must be one of string, number, boolean, json, comma_delimited_list",
        "resources.a.creation_policy: unknown key; expected one of type, properties, "
        "depends_on, metadata, deletion_policy, update_policy, description, condition, "
        "external_id",
        "resources.a.properties: must be a mapping",
        "resources.a.deletion_policy: must be Delete or Retain",
        "resources.b.type: is required",
        "resources.c.depends_on.0: resource 'c' cannot depend on itself",
        "resources.c.depends_on.1: resource 'zz' is not defined in the template",
        "resources.c.depends_on.2: must be a resource name",
        "outputs.o.value: is required",
    ]


def test_sections_must_be_mappings() -> None:
    source = "heat_template_version: 2018-08-31\nresources: [a]\noutputs: 3\nparameters: x\n"
    assert problems_of(source) == [
        "parameters: must be a mapping of names to definitions",
        "resources: must be a mapping of names to definitions",
        "outputs: must be a mapping of names to definitions",
    ]


def test_depends_on_string_or_list_deduplicated() -> None:
    source = """
heat_template_version: 2018-08-31
resources:
  a: {type: T}
  b: {type: T, depends_on: [a, a]}
  c: {type: T, depends_on: a}
"""
    template = load_template(source)
    assert template.resources["b"].depends_on == ("a",)
    assert template.resources["c"].depends_on == ("a",)


def test_depends_on_wrong_type() -> None:
    source = "heat_template_version: 2018-08-31\nresources:\n  a: {type: T, depends_on: {x: 1}}\n"
    assert problems_of(source) == [
        "resources.a.depends_on: must be a resource name or a list of resource names"
    ]


def test_resource_type_must_be_string() -> None:
    source = "heat_template_version: 2018-08-31\nresources:\n  a: {type: 3}\n  b: 7\n"
    assert problems_of(source) == [
        "resources.a.type: must be a non-empty string",
        "resources.b: a resource must be a mapping with at least a type",
    ]


def test_empty_sections_are_allowed() -> None:
    template = load_template("heat_template_version: 2018-08-31\nresources:\noutputs:\n")
    assert template.resources == {}
    assert template.outputs == {}
    assert template.parameter_groups == ()


def test_output_unknown_key_and_bad_description() -> None:
    source = "heat_template_version: 2018-08-31\noutputs:\n  o: {value: 1, description: 2, x: 3}\n"
    assert problems_of(source) == [
        "outputs.o.x: unknown key; expected one of value, description, condition",
        "outputs.o.description: must be a string",
    ]


def test_parameter_groups() -> None:
    source = """
heat_template_version: 2018-08-31
parameters:
  a: {type: string}
  b: {type: string}
parameter_groups:
  - label: First
    description: the first
    parameters: [a]
  - parameters: [b]
"""
    groups = load_template(source).parameter_groups
    assert [(g.label, g.description, g.parameters) for g in groups] == [
        ("First", "the first", ("a",)),
        ("", "", ("b",)),
    ]


def test_parameter_group_problems() -> None:
    source = """
heat_template_version: 2018-08-31
parameters:
  a: {type: string}
parameter_groups:
  - parameters: [a, missing]
  - parameters: [a]
    colour: red
  - label: no list
  - 5
"""
    assert problems_of(source) == [
        "parameter_groups.0.parameters.1: parameter 'missing' is not declared",
        "parameter_groups.1.colour: unknown key; expected one of label, description, parameters",
        "parameter_groups.1.parameters.0: parameter 'a' is in more than one group",
        "parameter_groups.2.parameters: must be a list of parameter names",
        "parameter_groups.3: a parameter group must be a mapping",
    ]


def test_parameter_groups_must_be_list() -> None:
    source = "heat_template_version: 2018-08-31\nparameter_groups: {a: 1}\n"
    assert problems_of(source) == ["parameter_groups: must be a list"]


def test_non_string_keys_are_rejected() -> None:
    source = (
        "heat_template_version: 2018-08-31\nresources:\n  a:\n    type: T\n    properties: {1: x}\n"
    )
    [problem] = problems_of(source)
    assert problem.startswith("resources.a.properties: keys must be strings")


def test_non_finite_numbers_are_rejected() -> None:
    source = (
        "heat_template_version: 2018-08-31\nresources:\n  a: {type: T, properties: {n: .inf}}\n"
    )
    assert problems_of(source) == ["resources.a.properties.n: numbers must be finite"]


def test_alias_bomb_is_rejected() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 10)
    ]
    with pytest.raises(TemplateError, match="too large"):
        load_template("\n".join(lines))


def test_self_containing_mapping_is_rejected() -> None:
    properties: dict[str, object] = {}
    properties["me"] = properties
    document = {
        "heat_template_version": "2018-08-31",
        "resources": {"a": {"type": "T", "properties": properties}},
    }
    assert problems_of(document) == ["resources.a.properties.me: the value contains itself"]


def test_unsupported_python_values_in_mapping_source() -> None:
    document = {"heat_template_version": "2018-08-31", "description": b"bytes"}
    assert problems_of(document) == [
        "description: a value of type bytes is not allowed in a template"
    ]


def test_errors_are_conv_tasks_errors_with_dict_form() -> None:
    with pytest.raises(ConvTasksError) as info:
        load_template("heat_template_version: nope\n")
    data = info.value.to_dict()
    assert data["error"] == "invalid_template"


def test_snippets_do_not_share_data_with_source() -> None:
    document = {
        "heat_template_version": "2018-08-31",
        "resources": {"a": {"type": "T", "properties": {"l": [1]}}},
    }
    template = load_template(document)
    document["resources"]["a"]["properties"]["l"].append(2)  # type: ignore[index]
    assert template.resources["a"].properties == {"l": [1]}


def test_lower_case_deletion_policies_from_2016_10_14() -> None:
    def policy(value: str, version: str) -> str:
        doc = {
            "heat_template_version": version,
            "resources": {"a": {"type": "T", "deletion_policy": value}},
        }
        return load_template(doc).resources["a"].deletion_policy

    assert policy("retain", "2016-10-14") == "Retain"
    assert policy("delete", "2018-08-31") == "Delete"
    with pytest.raises(TemplateError, match="deletion_policy: must be Delete or Retain"):
        policy("retain", "2016-04-08")
