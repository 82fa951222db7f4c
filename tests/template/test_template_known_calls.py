"""known_call_problems: calls whose arguments are known and whose evaluation must fail are
found before anything runs; calls that wait for a resource or a value are left alone
(issue 25, item 6)."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.template import load_template
from conv_tasks.template.known_calls import known_call_problems

PARAMETERS = {
    "word": {"type": "string", "default": "hello"},
    "secret": {"type": "string", "hidden": True},
}


def _problems(value: Any, values: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "parameters": PARAMETERS,
            "resources": {
                "other": {"type": "OS::Heat::None"},
                "x": {"type": "OS::Heat::Value", "properties": {"value": value}},
            },
        }
    )
    found = known_call_problems(template, values or {}, template.hidden_parameters())
    return [(p.path, p.message) for p in found]


AT = "resources.x.properties.value"


@pytest.mark.parametrize(
    ("value", "path", "words"),
    [
        (
            {"str_replace_strict": {"template": "hello", "params": {"$missing": "w"}}},
            f"{AT}.str_replace_strict.params.$missing",
            "not in the template: $missing",
        ),
        (
            {"str_replace_vstrict": {"template": "a $k", "params": {"$k": ""}}},
            f"{AT}.str_replace_vstrict",
            "",
        ),
        (
            {"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]},
            f"{AT}.map_replace",
            "collides",
        ),
        (
            {"repeat": {"for_each": {"%x%": {"get_param": "word"}}, "template": "%x%"}},
            f"{AT}.repeat",
            "for_each",
        ),
        ({"str_split": [",", "a,b", 5]}, f"{AT}.str_split", "index"),
        (
            {"list_join": [",", [{"str_split": [",", "a", 4]}]]},
            f"{AT}.list_join.1.0.str_split",
            "index",
        ),
        (
            {"str_replace_strict": {"template": "hi", "params": {"$w": {"get_param": "word"}}}},
            f"{AT}.str_replace_strict.params.$w",
            "$w",
        ),
    ],
)
def test_a_known_call_that_fails_is_a_problem_at_its_path(
    value: Any, path: str, words: str
) -> None:
    ((found_path, message),) = _problems(value, {"word": "hello"})
    assert found_path == path
    assert words in message


@pytest.mark.parametrize(
    "value",
    [
        {"str_replace_strict": {"template": "hello $w", "params": {"$w": "x"}}},
        {"str_replace_strict": {"template": {"get_attr": ["other", "x"]}, "params": {"$w": "x"}}},
        {"str_replace_strict": {"template": "hi", "params": {"$w": {"get_resource": "other"}}}},
        # A parameter without a value, or a hidden one, is not known here.
        {"str_split": [",", {"get_param": "word"}, 9]},
        {"str_split": [",", {"get_param": "secret"}, 9]},
        # The branch an if does not take is never evaluated.
        {"if": [False, {"str_split": [",", "a", 9]}, "ok"]},
    ],
)
def test_a_call_that_works_or_waits_for_the_traversal_is_not_a_problem(value: Any) -> None:
    assert _problems(value, {"secret": "a,b"}) == []


def test_a_known_parameter_value_is_evaluated() -> None:
    found = _problems({"str_split": [",", {"get_param": "word"}, 9]}, {"word": "a,b"})
    assert [path for path, _ in found] == [f"{AT}.str_split"]


def test_the_calls_in_an_inline_mapping_template_are_the_parents() -> None:
    # As in Heat, a template given as a mapping is a property value: the parent resolves
    # its calls (a child's own calls go in a template given as text).
    child = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"str_split": [",", {"get_param": "word"}, 3]}},
            }
        },
    }
    template = load_template(
        {
            "heat_template_version": "2018-08-31",
            "parameters": PARAMETERS,
            "resources": {"s": {"type": "OS::Heat::Stack", "properties": {"template": child}}},
        }
    )
    found = known_call_problems(template, {"word": "a"})
    assert [p.path for p in found] == [
        "resources.s.properties.template.resources.v.properties.value.str_split"
    ]
