"""Intrinsic function recognition and the checks load_template makes on calls."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.template import FUNCTION_NAMES, contains_function, load_template


def template(properties: dict[str, Any], version: str = "2018-08-31") -> dict[str, Any]:
    return {
        "heat_template_version": version,
        "parameters": {"flavor": {"type": "string"}, "nets": {"type": "json"}},
        "resources": {
            "net": {"type": "T"},
            "web": {"type": "T", "properties": properties},
        },
    }


def problems(properties: dict[str, Any], version: str = "2018-08-31") -> list[str]:
    with pytest.raises(TemplateError) as info:
        load_template(template(properties, version))
    return [str(p) for p in info.value.problems]


def test_function_names() -> None:
    # HOT's functions up to 2021-04-16, the condition functions, and the CloudFormation
    # ones (recognised so that they are refused by name).
    assert {"get_param", "repeat", "make_url", "if", "equals", "yaql", "Fn::Join", "Ref"} <= (
        FUNCTION_NAMES
    )
    assert len(FUNCTION_NAMES) == 21 + 4 + 9


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"get_param": "x"}, True),
        ([1, {"a": [{"get_resource": "r"}]}], True),
        ({"get_param": "x", "other": 1}, False),
        ({"get_params": "x"}, False),
        ("get_param", False),
        ({"a": {"b": [None, 3, "s"]}}, False),
        ((1, {"list_join": [",", []]}), True),
    ],
)
def test_contains_function(value: Any, expected: bool) -> None:
    assert contains_function(value) is expected


def test_valid_calls_are_accepted() -> None:
    load_template(
        template(
            {
                "a": {"get_param": "flavor"},
                "b": {"get_param": ["nets", "x", 0, {"get_param": "flavor"}]},
                "c": {"get_resource": "net"},
                "d": {"get_attr": ["net", "addresses", "private", 0]},
                "e": {
                    "str_replace": {"template": "x-$y", "params": {"$y": {"get_param": "flavor"}}}
                },
                "f": {
                    "str_replace": {
                        "template": {"get_param": "flavor"},
                        "params": {"get_param": "nets"},
                    }
                },
                "g": {"list_join": [",", ["a", "b"]]},
                "h": {"list_join": ["-", ["a"], {"get_param": "nets"}, ["c"]]},
                "i": {"get_param": "flavor", "not": "a call"},
            }
        )
    )


def test_undeclared_parameter_has_full_path() -> None:
    assert problems({"image": {"get_param": "flavour"}}) == [
        "resources.web.properties.image.get_param: parameter 'flavour' is not declared; "
        "did you mean 'flavor'?"
    ]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({"get_param": 3}, "get_param: the argument must be a parameter name or a list"),
        ({"get_param": []}, "get_param: the argument must be a parameter name or a list"),
        ({"get_param": ["nets", 1.5]}, "get_param: path items must be strings or integers"),
        ({"get_resource": ["net"]}, "get_resource: the argument must be the name of a resource"),
        ({"get_resource": "nope"}, "get_resource: resource 'nope' is not defined in the template"),
        ({"get_resource": "web"}, "get_resource: resource 'web' cannot refer to itself"),
        ({"get_attr": "net"}, "get_attr: the argument must be a list [resource, attribute"),
        ({"get_attr": []}, "get_attr: the argument must be a list [resource, attribute"),
        ({"get_attr": ["nope", "a"]}, "get_attr: resource 'nope' is not defined in the template"),
        ({"get_attr": ["web", "a"]}, "get_attr: resource 'web' cannot refer to itself"),
        ({"get_attr": [{"get_param": "flavor"}, "a"]}, "get_attr: the resource must be given"),
        ({"get_attr": ["net", 3]}, "get_attr: the attribute must be given as a name"),
        ({"get_attr": ["net", "a", None]}, "get_attr: path items must be strings or integers"),
        ({"str_replace": "x"}, "str_replace: the argument must be a mapping with keys"),
        ({"str_replace": {"template": "x"}}, "str_replace: the argument must be a mapping"),
        ({"str_replace": {"template": 1, "params": {}}}, "str_replace: 'template' must be"),
        ({"str_replace": {"template": "x", "params": [1]}}, "str_replace: 'params' must be"),
        ({"str_replace": {"template": "x", "params": {"": 1}}}, "str_replace: the keys of"),
        ({"list_join": ","}, "list_join: the argument must be a list [delimiter"),
        ({"list_join": [","]}, "list_join: the argument must be a list [delimiter"),
        ({"list_join": [1, ["a"]]}, "list_join: the delimiter must be a string"),
        ({"list_join": [",", "a"]}, "list_join: every argument after the delimiter must be"),
    ],
)
def test_argument_problems(value: Any, reason: str) -> None:
    [problem] = problems({"x": value})
    assert problem.startswith(f"resources.web.properties.x.{reason}")


def test_nested_call_problems_have_nested_paths() -> None:
    assert problems(
        {
            "x": [{"a": {"str_replace": {"template": "t", "params": {"k": {"get_param": "zz"}}}}}],
        }
    ) == [
        "resources.web.properties.x.0.a.str_replace.params.k.get_param: "
        "parameter 'zz' is not declared"
    ]


def test_metadata_and_outputs_are_checked() -> None:
    document = template({})
    document["resources"]["web"]["metadata"] = {"m": {"get_resource": "ghost"}}
    document["outputs"] = {
        "o": {"value": {"get_attr": ["ghost", "ip"]}},
        "ok": {"value": {"get_attr": ["web", "ip"]}},
    }
    with pytest.raises(TemplateError) as info:
        load_template(document)
    assert [str(p) for p in info.value.problems] == [
        "resources.web.metadata.m.get_resource: resource 'ghost' is not defined in the template",
        "outputs.o.value.get_attr: resource 'ghost' is not defined in the template",
    ]


def test_list_join_joins_one_list_before_2015_10_15() -> None:
    # Heat's HOTemplate20130523 already has list_join (hot_funcs.Join: one list).
    load_template(template({"x": {"list_join": [",", ["a"]]}}, version="2013-05-23"))
    assert problems({"x": {"list_join": [",", ["a"], ["b"]]}}, version="2015-04-30") == [
        "resources.web.properties.x.list_join: joins exactly one list in this template "
        "version; several lists need heat_template_version 2015-10-15 or later"
    ]
    load_template(template({"x": {"list_join": [",", ["a"], ["b"]]}}, version="2015-10-15"))


def test_other_functions_work_in_oldest_version() -> None:
    load_template(
        template(
            {"x": {"get_param": "flavor"}, "y": {"get_attr": ["net", "a"]}}, version="2013-05-23"
        )
    )


def test_many_function_problems_are_aggregated() -> None:
    found = problems(
        {
            "a": {"get_param": "p1"},
            "b": {"get_resource": "r1"},
            "c": [{"get_attr": ["r2", "x"]}],
        }
    )
    assert len(found) == 3
    assert found[0].startswith("resources.web.properties.a.get_param")
    assert found[1].startswith("resources.web.properties.b.get_resource")
    assert found[2].startswith("resources.web.properties.c.0.get_attr")
