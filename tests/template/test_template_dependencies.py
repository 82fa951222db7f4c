"""Template.dependencies, attributes_needed and hidden_parameters."""

from __future__ import annotations

from conv_tasks.template import load_template

SOURCE = """
heat_template_version: 2018-08-31
parameters:
  key: {type: string, hidden: true, default: k}
  size: {type: number, default: 1}
resources:
  a: {type: T}
  b: {type: T}
  c: {type: T}
  d:
    type: T
    depends_on: [a]
    properties:
      deep:
        - x:
            - y:
                str_replace:
                  template: "host-$n"
                  params:
                    $n: {get_attr: [b, name, 0]}
      joined: {list_join: [",", [{get_resource: c}], [{get_param: [size]}]]}
  e:
    type: T
    depends_on: d
    metadata:
      note: {get_attr: [c, status]}
      other: {get_attr: [c, first, nested]}
  f:
    type: T
    properties:
      p: {get_param: [key, {get_attr: [e, keyname]}]}
outputs:
  o1: {value: {get_attr: [a, address]}}
  o2: {value: {list_join: [" ", [{get_attr: [f, id]}, {get_attr: [b, name]}]]}}
"""


def test_dependencies_from_all_references() -> None:
    assert load_template(SOURCE).dependencies() == {
        "a": frozenset(),
        "b": frozenset(),
        "c": frozenset(),
        "d": frozenset({"a", "b", "c"}),
        "e": frozenset({"d", "c"}),
        "f": frozenset({"e"}),
    }


def test_outputs_add_no_dependencies() -> None:
    template = load_template(SOURCE)
    assert all("f" not in required for required in template.dependencies().values())


def test_attributes_needed_from_resources_and_outputs() -> None:
    assert load_template(SOURCE).attributes_needed() == {
        "a": frozenset({"address"}),
        "b": frozenset({"name"}),
        "c": frozenset({"status", "first"}),
        "d": frozenset(),
        "e": frozenset({"keyname"}),
        "f": frozenset({"id"}),
    }


def test_hidden_parameters() -> None:
    assert load_template(SOURCE).hidden_parameters() == frozenset({"key"})


def test_template_without_resources() -> None:
    template = load_template("heat_template_version: 2018-08-31\n")
    assert template.dependencies() == {}
    assert template.attributes_needed() == {}
    assert template.hidden_parameters() == frozenset()
