"""The conditions section, condition keys on resources and outputs, `if`, and applying
conditions to a template once parameter values are known."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.template import Template, apply_conditions, load_template, resolve_resource
from conv_tasks.template.conditions import ConditionSet
from conv_tasks.template.unresolvable import Unresolvable

CONDITIONS = {
    "prod": {"equals": [{"get_param": "env"}, "prod"]},
    "big": {"get_param": "big"},
    "not_prod": {"not": "prod"},
    "prod_and_big": {"and": ["prod", "big"]},
    "prod_or_big": {"or": ["prod", {"equals": [{"get_param": "size"}, 10]}]},
    "always": True,
    "in_zone": {"contains": [{"get_param": "zone"}, ["z1", "z2"]]},
    "deep": {"equals": [{"get_param": ["tags", "team", 0]}, "ops"]},
}


def document(**more: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "env": {"type": "string"},
            "big": {"type": "boolean"},
            "size": {"type": "number"},
            "zone": {"type": "string"},
            "tags": {"type": "json"},
        },
        "conditions": CONDITIONS,
        "resources": {"a": {"type": "T"}},
    }
    doc.update(more)
    return doc


VALUES = {"env": "prod", "big": False, "size": 10, "zone": "z3", "tags": {"team": ["ops"]}}


def problems(doc: dict[str, Any]) -> list[str]:
    with pytest.raises(TemplateError) as info:
        load_template(doc)
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("prod", True),
        ("big", False),
        ("not_prod", False),
        ("prod_and_big", False),
        ("prod_or_big", True),
        ("always", True),
        ("in_zone", False),
        ("deep", True),
    ],
)
def test_conditions_are_decided_from_parameters(name: str, expected: bool) -> None:
    template = load_template(document())
    assert ConditionSet(template.conditions, VALUES).enabled(name) is expected


def test_a_condition_path_that_leads_nowhere_reads_as_empty() -> None:
    conditions = {"c": {"equals": [{"get_param": ["tags", "nobody", 3]}, ""]}}
    assert ConditionSet(conditions, {"tags": {}}).enabled("c") is True


def test_a_condition_must_come_out_boolean() -> None:
    with pytest.raises(
        Unresolvable, match="condition 'c' must come out true or false, not a int value"
    ):
        ConditionSet({"c": {"get_param": "env"}}, {"env": 3}).enabled("c")


def test_inline_expressions_and_booleans_are_conditions() -> None:
    decide = ConditionSet(CONDITIONS, VALUES)
    assert decide.enabled(True) is True
    assert decide.enabled(None) is True
    assert decide.enabled({"not": {"equals": [{"get_param": "env"}, "prod"]}}) is False


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ("x", ["conditions: must be a mapping of condition names to definitions"]),
        ({"c": "prod"}, ["conditions.c: must be true, false or a condition function"]),
        ({"c": {"not": "nope"}}, [
            "conditions.c.not: condition 'nope' is not defined in the conditions section"
        ]),
        ({"c": {"get_resource": "a"}}, [
            "conditions.c.get_resource: the function 'get_resource' cannot be used in a "
            "condition; conditions may use and, contains, equals, get_param, not, or, yaql"
        ]),
        ({"c": {"equals": [{"list_join": [",", ["a"]]}, "a"]}}, [
            "conditions.c.equals.0.list_join: the function 'list_join' cannot be used in a "
            "condition; conditions may use and, contains, equals, get_param, not, or, yaql"
        ]),
        ({"c": {"equals": ["a"]}}, [
            "conditions.c.equals: the argument must be a list [value_1, value_2]"
        ]),
        ({"c": {"and": ["always"]}}, [
            "conditions.c.and: the argument must be a list of at least 2 conditions"
        ]),
        ({"c": {"equals": [{"get_param": "ghost"}, 1]}}, [
            "conditions.c.equals.0.get_param: parameter 'ghost' is not declared"
        ]),
        ({"c": {"yaql": {"expression": "$.data"}}}, [
            "conditions.c.yaql: yaql is not supported by conv_tasks"
        ]),
        ({"c1": {"not": "c2"}, "c2": {"and": [True, "c1"]}}, [
            "conditions.c1: circular definition: c1 -> c2 -> c1"
        ]),
    ],
)  # fmt: skip
def test_conditions_section_problems(conditions: Any, expected: list[str]) -> None:
    assert problems(document(conditions=conditions)) == expected


def test_contains_in_a_condition_needs_2017_09_01() -> None:
    doc = document(heat_template_version="2017-02-24", conditions={"c": {"contains": ["a", []]}})
    assert problems(doc) == [
        "conditions.c.contains: the function 'contains' needs heat_template_version "
        "2017-09-01 or later (this template is 2017-02-24)"
    ]


def test_conditions_need_2016_10_14() -> None:
    doc = document(heat_template_version="2016-04-08")
    doc["resources"]["a"]["condition"] = "prod"
    doc["outputs"] = {"o": {"value": 1, "condition": True}}
    assert problems(doc) == [
        "conditions: the conditions section needs heat_template_version 2016-10-14 or later "
        "(this template is 2016-04-08)",
        "resources.a.condition: the condition key needs heat_template_version 2016-10-14 or "
        "later (this template is 2016-04-08)",
        "outputs.o.condition: the condition key needs heat_template_version 2016-10-14 or "
        "later (this template is 2016-04-08)",
    ]


def test_condition_key_checks() -> None:
    doc = document(
        resources={
            "a": {"type": "T", "condition": "ghost"},
            "b": {"type": "T", "condition": {"get_attr": ["a", "x"]}},
            "c": {"type": "T", "condition": 3},
            "d": {"type": "T", "condition": {"equals": [{"get_param": "env"}, "x"]}},
            "e": {"type": "T", "condition": False},
        }
    )
    assert problems(doc) == [
        "resources.a.condition: condition 'ghost' is not defined in the conditions section",
        "resources.b.condition.get_attr: the function 'get_attr' cannot be used in a "
        "condition; conditions may use and, contains, equals, get_param, not, or, yaql",
        "resources.c.condition: must be a condition name, true, false or a condition function",
    ]


def test_condition_functions_outside_conditions_are_refused() -> None:
    doc = document(resources={"a": {"type": "T", "properties": {"p": {"not": "prod"}}}})
    assert problems(doc) == [
        "resources.a.properties.p.not: 'not' is a condition function: use it in the "
        "conditions section, in a condition key or as the condition of an if"
    ]


def test_if_checks() -> None:
    doc = document(
        resources={
            "a": {
                "type": "T",
                "properties": {
                    "p": {"if": ["prod", 1]},
                    "q": {"if": ["ghost", 1, 2]},
                    "r": {"if": [{"equals": [{"get_param": "nope"}, 1]}, 1, 2]},
                    "s": {"if": ["prod", {"get_resource": "zz"}, 2]},
                },
            }
        }
    )
    assert problems(doc) == [
        "resources.a.properties.p.if: the argument must be a list "
        "[condition, value_if_true, value_if_false]",
        "resources.a.properties.q.if.0: condition 'ghost' is not defined in the conditions section",
        "resources.a.properties.r.if.0.equals.0.get_param: parameter 'nope' is not declared",
        "resources.a.properties.s.if.1.get_resource: resource 'zz' is not defined in the template",
    ]
    older = document(heat_template_version="2016-04-08", conditions=None)
    older["resources"]["a"]["properties"] = {"p": {"if": [True, 1, 2]}}
    assert problems(older) == [
        "resources.a.properties.p.if: the function 'if' needs heat_template_version "
        "2016-10-14 or later (this template is 2016-04-08)"
    ]


STACK = {
    "resources": {
        "db": {"type": "T", "condition": "prod"},
        "cache": {"type": "T", "condition": {"not": "prod"}},
        "web": {
            "type": "T",
            "depends_on": ["db", "cache"],
            "properties": {
                "name": {"if": ["prod", "web-prod", "web-dev"]},
                "db": {"if": ["prod", {"get_resource": "db"}, {"get_resource": "cache"}]},
                "nested": [{"if": ["big", {"if": ["prod", "a", "b"]}, "c"]}],
            },
            "metadata": {"m": {"if": [{"get_param": "big"}, 1, 2]}},
        },
    },
    "outputs": {
        "db_id": {"value": {"get_resource": "db"}, "condition": "prod", "description": "d"},
        "cache_id": {"value": {"get_resource": "cache"}, "condition": "not_prod"},
        "name": {"value": {"if": ["prod", "p", "d"]}},
    },
}


def applied(values: dict[str, Any]) -> Template:
    return apply_conditions(load_template(document(**STACK)), {**VALUES, **values})


def test_apply_conditions_when_prod() -> None:
    template = applied({"env": "prod", "big": True})
    assert set(template.resources) == {"db", "web"}
    web = template.resources["web"]
    assert web.properties == {"name": "web-prod", "db": {"get_resource": "db"}, "nested": ["a"]}
    assert web.metadata == {"m": 1}
    assert web.depends_on == ("db",)
    assert template.dependencies() == {"db": frozenset(), "web": frozenset({"db"})}
    assert template.outputs["db_id"].value == {"get_resource": "db"}
    assert template.outputs["cache_id"].value is None
    assert template.outputs["name"].value == "p"


def test_apply_conditions_when_not_prod() -> None:
    template = applied({"env": "dev", "big": False})
    assert set(template.resources) == {"cache", "web"}
    assert template.resources["web"].properties == {
        "name": "web-dev",
        "db": {"get_resource": "cache"},
        "nested": ["c"],
    }
    assert template.dependencies()["web"] == frozenset({"cache"})
    assert template.outputs["db_id"].value is None
    assert template.outputs["db_id"].description == "d"


def test_apply_conditions_keeps_the_raw_document_and_the_original() -> None:
    original = load_template(document(**STACK))
    template = apply_conditions(original, VALUES)
    assert template.raw == original.raw
    assert set(original.resources) == {"db", "cache", "web"}


def test_a_reference_to_a_left_out_resource_is_an_error() -> None:
    doc = document(
        resources={
            "db": {"type": "T", "condition": "prod"},
            "web": {"type": "T", "properties": {"db": {"get_attr": ["db", "ip"]}}},
        },
        outputs={"o": {"value": {"get_resource": "db"}}},
    )
    with pytest.raises(TemplateError) as info:
        apply_conditions(load_template(doc), {**VALUES, "env": "dev"})
    assert [str(p) for p in info.value.problems] == [
        "resources.web.properties: refers to resource 'db', which 'prod' leaves out of this "
        "stack; wrap the reference in an if on the same condition",
        "outputs.o: refers to resource 'db', which 'prod' leaves out of this stack; wrap the "
        "reference in an if on the same condition",
    ]
    # The same template is fine when the resource is there.
    apply_conditions(load_template(doc), VALUES)


def test_two_argument_if_leaves_the_item_out_from_2021_04_16() -> None:
    doc = document(
        heat_template_version="2021-04-16",
        resources={
            "a": {
                "type": "T",
                "properties": {"p": {"if": ["big", 1]}, "l": [1, {"if": ["big", 2]}, 3]},
            }
        },
    )
    assert apply_conditions(load_template(doc), VALUES).resources["a"].properties == {"l": [1, 3]}
    assert apply_conditions(load_template(doc), {**VALUES, "big": True}).resources[
        "a"
    ].properties == {"p": 1, "l": [1, 2, 3]}


def test_a_template_without_conditions_is_returned_as_is() -> None:
    template = load_template(
        {"heat_template_version": "2015-10-15", "resources": {"a": {"type": "T"}}}
    )
    assert apply_conditions(template, {}) is template


def test_a_long_chain_of_conditions_is_refused_not_a_crash() -> None:
    chain: dict[str, Any] = {f"c{i}": {"not": f"c{i + 1}"} for i in range(3000)}
    chain["c3000"] = True
    doc = document(conditions=chain, resources={"a": {"type": "T", "condition": "c0"}})
    template = load_template(doc)  # the cycle check does not recurse
    with pytest.raises(TemplateError) as info:
        apply_conditions(template, VALUES)
    assert [str(p) for p in info.value.problems] == [
        "resources.a.condition: conditions refer to other conditions more than 100 deep"
    ]
    chain["c3000"] = {"not": "c0"}
    assert problems(doc)[0].startswith("conditions.c0: circular definition: c0 -> c1 -> c2")


def test_resolve_also_chooses_if_branches_in_a_template_used_as_is() -> None:
    doc = document(
        resources={
            "a": {"type": "T", "properties": {"p": {"if": ["prod", "yes", {"get_param": "env"}]}}}
        }
    )
    template = load_template(doc)
    assert resolve_resource(template, "a", VALUES, {}).properties == {"p": "yes"}
    dev = {**VALUES, "env": "dev"}
    assert resolve_resource(template, "a", dev, {}).properties == {"p": "dev"}
