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


TAINT = """
heat_template_version: 2018-08-31
parameters:
  pw: {type: string, hidden: true, default: tok-SECRET-123}
  region: {type: string, default: north}
resources:
  uses_pw:
    type: T
    properties:
      key: {str_replace: {template: {get_param: pw}, params: {"-": " "}}}
  reads_attr: {type: T, properties: {v: {get_attr: [uses_pw, output]}}}
  reads_attr_again: {type: T, properties: {v: {list_join: [",", [{get_attr: [reads_attr, x]}]]}}}
  only_ref: {type: T, properties: {v: {get_resource: uses_pw}}}
  path_secret: {type: T, properties: {v: {get_attr: [only_ref, map, {get_param: pw}]}}}
  plain: {type: T, properties: {v: {get_param: region}}}
outputs:
  transformed: {value: {str_replace: {template: {get_param: pw}, params: {"-": " "}}}}
  through_two: {value: {get_attr: [reads_attr_again, x]}}
  ref_only: {value: {get_resource: uses_pw}}
  public: {value: {get_param: region}}
"""


def test_values_derived_from_hidden_parameters_are_followed_through_the_template() -> None:
    resources, outputs = load_template(TAINT).derived_from_hidden()
    assert resources == {"uses_pw", "reads_attr", "reads_attr_again", "path_secret"}
    assert outputs == {"transformed", "through_two"}


def test_nothing_is_derived_without_hidden_parameters() -> None:
    source = TAINT.replace("hidden: true", "hidden: false")
    assert load_template(source).derived_from_hidden() == (frozenset(), frozenset())
