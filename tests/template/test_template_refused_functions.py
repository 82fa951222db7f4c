"""yaql and CloudFormation functions are refused by name, saying when HOT removed them."""

from __future__ import annotations

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.template import load_template
from tests.template.function_support import load_problems

P = "resources.r.properties.v"


def test_yaql_is_refused_by_name() -> None:
    assert load_problems({"yaql": {"expression": "$.data.x", "data": {"x": 1}}}) == [
        f"{P}.yaql: yaql is not supported by conv_tasks"
    ]


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("Fn::Join", "; use list_join"),
        ("Fn::Split", "; use str_split"),
        ("Fn::Replace", "; use str_replace"),
        ("Fn::Base64", ""),
        ("Fn::GetAZs", ""),
        ("Fn::MemberListToMap", ""),
        ("Fn::ResourceFacade", "; use resource_facade"),
        ("Ref", "; use get_resource or get_param"),
    ],
)
def test_cloudformation_functions_are_refused_and_their_removal_said(name: str, hint: str) -> None:
    assert load_problems({name: "x"}, "2013-05-23") == [
        f"{P}.{name}: the CloudFormation function '{name}' is not supported by conv_tasks{hint}"
    ]
    assert load_problems({name: "x"}, "2014-10-16") == [
        f"{P}.{name}: the CloudFormation function '{name}' was removed in "
        f"heat_template_version 2014-10-16 (this template is 2014-10-16) and is not supported "
        f"by conv_tasks{hint}"
    ]


def test_fn_select_was_removed_in_2015_10_15() -> None:
    assert (
        "is not supported by conv_tasks" in load_problems({"Fn::Select": [0, []]}, "2015-04-30")[0]
    )
    assert load_problems({"Fn::Select": [0, []]}, "2015-10-15")[0].startswith(
        f"{P}.Fn::Select: the CloudFormation function 'Fn::Select' was removed in "
        "heat_template_version 2015-10-15 (this template is 2015-10-15)"
    )


def test_refused_inside_other_functions_and_outputs() -> None:
    assert load_problems({"list_join": [",", [{"Ref": "p"}]]}) == [
        f"{P}.list_join.1.0.Ref: the CloudFormation function 'Ref' was removed in "
        "heat_template_version 2014-10-16 (this template is 2018-08-31) and is not supported "
        "by conv_tasks; use get_resource or get_param"
    ]


@pytest.mark.parametrize(
    ("name", "hint"),
    [("Fn::GetAtt", "; use get_attr"), ("Fn::If", "; use if"), ("Fn::FindInMap", "")],
)
def test_cloudformation_functions_hot_never_had_are_refused_too(name: str, hint: str) -> None:
    assert load_problems({name: ["a", "b"]}) == [
        f"{P}.{name}: the CloudFormation function '{name}' is not supported by conv_tasks "
        f"(HOT templates never had it){hint}"
    ]


def test_cloudformation_condition_functions_are_refused_in_conditions() -> None:
    doc = {
        "heat_template_version": "2018-08-31",
        "conditions": {"c": {"Fn::Equals": ["a", "b"]}},
        "resources": {},
    }
    with pytest.raises(TemplateError) as info:
        load_template(doc)
    assert [str(p) for p in info.value.problems] == [
        "conditions.c.Fn::Equals: the CloudFormation function 'Fn::Equals' is not supported by "
        "conv_tasks (HOT templates never had it); use equals"
    ]
