"""scripts/heat_compat_sweep.py: finding inline templates, made-up parameter values, the
types it maps to OS::Heat::None and how refusals are grouped (no Heat sources needed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "heat_compat_sweep.py"


@pytest.fixture(scope="module")
def sweep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("heat_compat_sweep", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


MODULE = '''
MODULE_TEMPLATE = """
heat_template_version: 2015-10-15
resources:
  r: {type: OS::Heat::None}
"""

NOT_A_TEMPLATE = """
resource_registry:
  My::Type: OS::Heat::None
"""


class Test:
    template = """
heat_template_version: rocky
parameters:
  p: {type: string}
""" % ()

    def test(self):
        local = """heat_template_version: 2016-04-08
outputs: {}"""
        cfn = '{"AWSTemplateFormatVersion": "2010-09-09"}'
        broken = "heat_template_version: [unclosed"
'''


def test_inline_templates_are_the_hot_string_constants_named_by_their_assignment(
    sweep: ModuleType,
) -> None:
    found = sweep.inline_templates(MODULE, "tests/test_x.py")

    assert [c.source for c in found] == [
        "tests/test_x.py:MODULE_TEMPLATE",
        "tests/test_x.py:local",
        "tests/test_x.py:template",
    ]
    assert all(c.set_name == "heat-tests" and c.path is None for c in found)


def test_a_module_that_does_not_parse_gives_no_templates(sweep: ModuleType) -> None:
    assert sweep.inline_templates("def broken(:\n", "x.py") == []


def test_repository_templates_skip_environments_and_other_yaml(
    sweep: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "hot").mkdir()
    (tmp_path / "hot" / "a.yaml").write_text("heat_template_version: 2013-05-23\n")
    (tmp_path / "hot" / "env.yaml").write_text("parameters: {a: 1}\n")
    (tmp_path / "cfn.template").write_text('{"AWSTemplateFormatVersion": "2010-09-09"}\n')
    (tmp_path / "zuul.yaml").write_text("- job: {name: x}\n")

    found = sweep.repository_templates(tmp_path)

    assert [(c.source, c.path) for c in found] == [("hot/a.yaml", tmp_path / "hot" / "a.yaml")]


PARAMETERS = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  count: {type: number}
  names: {type: comma_delimited_list}
  data: {type: json}
  flag: {type: boolean}
  given: {type: string, default: kept}
  flavor:
    type: string
    constraints: [{allowed_values: [m1.small, m1.large]}]
  port:
    type: number
    constraints: [{range: {min: 1024, max: 65535}}]
  even:
    type: number
    constraints: [{range: {min: 3}}, {modulo: {step: 2, offset: 0}}]
  password:
    type: string
    constraints:
      - length: {min: 6, max: 8}
      - allowed_pattern: "[a-zA-Z0-9]+"
      - allowed_pattern: "[A-Z]+[a-zA-Z0-9]*"
  cidr:
    type: string
    constraints: [{allowed_pattern: "[0-9.]+/[0-9]+"}]
"""


def test_made_up_values_follow_the_type_and_simple_constraints(sweep: ModuleType) -> None:
    values = sweep.made_up_parameters(yaml.safe_load(PARAMETERS))

    assert values == {
        "name": "x",
        "count": 1,
        "names": "a,b",
        "data": {},
        "flag": True,
        "flavor": "m1.small",
        "port": 1024,
        "even": 4,
        "password": "XXXXXX",
        "cidr": "10.0.0.0/24",
    }


TYPES = """
heat_template_version: 2018-08-31
resources:
  server: {type: OS::Nova::Server}
  generic: {type: GenericResourceType}
  typo: {type: idontexist}
  nested: {type: nested.yaml}
  value: {type: OS::Heat::Value}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      resource_def:
        type: OS::Neutron::Port
        properties: {inputs: [{name: a, type: String}]}
"""


def test_foreign_types_are_heats_and_its_tests_but_not_providers_or_typos(
    sweep: ModuleType,
) -> None:
    known = {"OS::Heat::Value", "OS::Heat::ResourceGroup", "OS::Heat::None"}

    mapped = sweep.foreign_types([TYPES], known, {"GenericResourceType"})

    assert mapped == ["GenericResourceType", "OS::Neutron::Port", "OS::Nova::Server"]


def test_refusals_group_without_names_numbers_and_lines(sweep: ModuleType) -> None:
    first = sweep.reason_group("resources.web.depends_on: resource 'db' is not defined (line 12)")
    second = sweep.reason_group("resources.app.depends_on: resource 'x' is not defined (line 3)")

    assert first == second == "resources.*.depends_on: resource '…' is not defined"
    assert (
        sweep.reason_group("parameters.p: Heat's RE2 syntax") == "parameters.*: Heat's RE2 syntax"
    )


def test_an_inline_template_naming_a_file_its_test_supplies_needs_files(
    sweep: ModuleType,
) -> None:
    assert sweep.needs_files("resources.r.type: unknown resource type 'child.yaml'; see ...")
    assert sweep.needs_files(
        "'a.yaml' is implemented by the provider template 'a.yaml', which "
        "is not in the files sent with the request"
    )
    assert not sweep.needs_files("resources.r.type: unknown resource type 'idontexist'")
