"""repeat (lists, maps, permutations), map_merge, map_replace, filter, list_concat,
list_concat_unique, contains and get_attr without an attribute, per version."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.template import ResourceData
from tests.template.function_support import evaluate, evaluation_problems, load_problems

P = "resources.r.properties.v"


def repeat(template: Any, for_each: Any, **more: Any) -> dict[str, Any]:
    return {"repeat": {"template": template, "for_each": for_each, **more}}


def test_repeat_over_lists_makes_every_combination() -> None:
    value = repeat({"port": "%p%", "cidr": "%c%/24"}, {"%p%": ["22", "80"], "%c%": ["10.0.0.0"]})
    assert evaluate(value, "2015-04-30") == [
        {"port": "22", "cidr": "10.0.0.0/24"},
        {"port": "80", "cidr": "10.0.0.0/24"},
    ]


def test_repeat_replaces_in_keys_too_and_reads_parameters() -> None:
    value = repeat({"key_%n%": "v_%n%"}, {"%n%": {"get_param": "p"}})
    assert evaluate(value, parameters={"p": ["a", "b"]}) == [{"key_a": "v_a"}, {"key_b": "v_b"}]


def test_repeat_over_a_map_iterates_its_keys_from_2016_10_14() -> None:
    value = repeat("%k%", {"%k%": {"x": 1, "y": 2}})
    assert evaluate(value, "2016-10-14") == ["x", "y"]
    assert load_problems(value, "2016-04-08") == [
        f"{P}.repeat: the values of 'for_each' must be lists ('%k%' is not)"
    ]


def test_repeat_without_permutations_zips_from_2017_09_01() -> None:
    value = repeat("%a%-%b%", {"%a%": ["1", "2"], "%b%": ["x", "y"]}, permutations=False)
    assert evaluate(value, "2017-09-01") == ["1-x", "2-y"]
    assert evaluate(repeat("%a%-%b%", {"%a%": ["1", "2"], "%b%": ["x", "y"]})) == [
        "1-x", "1-y", "2-x", "2-y"
    ]  # fmt: skip
    assert load_problems(value, "2017-02-24") == [
        f"{P}.repeat: unknown key 'permutations'; expected one of for_each, template "
        "('permutations' needs heat_template_version 2017-09-01 or later)"
    ]
    uneven = repeat("%a%%b%", {"%a%": ["1"], "%b%": ["x", "y"]}, permutations=False)
    assert evaluation_problems(uneven) == [
        f"{P}.repeat: with permutations: false, the for_each lists must be equally long"
    ]
    assert load_problems(repeat("%a%", {"%a%": {"k": 1}}, permutations=False)) == [
        f"{P}.repeat: the values of 'for_each' must be lists ('%a%' is not)"
    ]


def test_repeat_argument_and_data_problems() -> None:
    assert load_problems({"repeat": {"template": "x"}}) == [
        f"{P}.repeat: the argument must be a mapping with keys 'template' and 'for_each'"
    ]
    assert load_problems(repeat("x", {})) == [
        f"{P}.repeat: 'for_each' must be a mapping of placeholders to lists"
    ]
    assert load_problems(repeat("x", {"%a%": ["1"]}, permutations="no")) == [
        f"{P}.repeat: 'permutations' must be true or false"
    ]
    assert evaluation_problems(repeat("%a%", {"%a%": [1]})) == [
        f"{P}.repeat: the items of 'for_each' must be strings ('%a%' has 1)"
    ]
    assert load_problems(repeat("x", {"%a%": ["1"]}), "2014-10-16")[0].endswith(
        "needs heat_template_version 2015-04-30 or later (this template is 2014-10-16)"
    )


def test_map_merge() -> None:
    value = {"map_merge": [{"a": 1, "b": 1}, None, {"get_param": "p"}, {"b": 3}]}
    assert evaluate(value, "2016-04-08", parameters={"p": {"c": 2}}) == {"a": 1, "b": 3, "c": 2}
    assert load_problems({"map_merge": [{}, "x"]}) == [f"{P}.map_merge: item 1 is not a map"]
    assert evaluation_problems({"map_merge": [{"get_param": "p"}]}, parameters={"p": [1]}) == [
        f"{P}.map_merge: item 0 is not a map but list"
    ]


def test_map_replace() -> None:
    value = {
        "map_replace": [
            {"k1": "v1", "k2": "v2", "k3": ["l"]},
            {"keys": {"k1": "K1"}, "values": {"v2": "V2", "v1": "V1"}},
        ]
    }
    assert evaluate(value, "2016-10-14") == {"K1": "V1", "k2": "V2", "k3": ["l"]}
    assert evaluation_problems({"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]}) == [
        f"{P}.map_replace: key replacement 'b' collides with a key in the input map"
    ]
    assert load_problems({"map_replace": [{"a": 1}, {"kes": {}}]}) == [
        f"{P}.map_replace: unknown key 'kes' in the replacements; expected keys, values"
    ]
    assert load_problems({"map_replace": [{}, {}]}, "2016-04-08")[0].endswith(
        "needs heat_template_version 2016-10-14 or later (this template is 2016-04-08)"
    )


def test_filter() -> None:
    assert evaluate({"filter": [[None, "b"], ["a", None, "b", "c"]]}, "2017-02-24") == [
        "a",
        "c",
    ]
    assert evaluate({"filter": [[], ["a"]]}) == ["a"]
    assert load_problems({"filter": [["a"]]}) == [
        f"{P}.filter: the argument must be a list [values, list]"
    ]
    assert load_problems({"filter": [[], []]}, "2016-10-14")[0].endswith(
        "needs heat_template_version 2017-02-24 or later (this template is 2016-10-14)"
    )


def test_list_concat_and_unique() -> None:
    lists = [["a", "b"], None, {"get_param": "p"}, ["a"]]
    assert evaluate({"list_concat": lists}, "2017-09-01", parameters={"p": ["c"]}) == [
        "a", "b", "c", "a"
    ]  # fmt: skip
    assert evaluate({"list_concat_unique": lists}, parameters={"p": [{"x": 1}, {"x": 1}]}) == [
        "a", "b", {"x": 1}
    ]  # fmt: skip
    assert load_problems({"list_concat": [["a"], "b"]}) == [
        f"{P}.list_concat: item 1 is not a list"
    ]
    assert load_problems({"list_concat": [[]]}, "2017-02-24")[0].endswith(
        "needs heat_template_version 2017-09-01 or later (this template is 2017-02-24)"
    )


def test_contains_in_values() -> None:
    assert evaluate({"contains": ["b", ["a", "b"]]}, "2017-09-01") is True
    assert evaluate({"contains": [{"get_param": "p"}, ["a"]]}, parameters={"p": "z"}) is False
    assert evaluation_problems({"contains": ["a", {"get_param": "p"}]}, parameters={"p": 3}) == [
        f"{P}.contains: the second argument must be a list"
    ]


def test_get_attr_without_attribute_gives_all_from_2015_10_15() -> None:
    inputs = {"other": ResourceData("id", {"a": 1, "b": [2]})}
    assert evaluate({"get_attr": ["other"]}, "2015-10-15", inputs=inputs) == {"a": 1, "b": [2]}
    assert load_problems({"get_attr": ["other"]}, "2015-04-30") == [
        f"{P}.get_attr: get_attr without an attribute name needs heat_template_version "
        "2015-10-15 or later (this template is 2015-04-30)"
    ]


@pytest.mark.parametrize("version", ["2013-05-23", "2014-10-16", "2018-08-31"])
def test_get_attr_with_a_path_in_every_version(version: str) -> None:
    inputs = {"other": ResourceData("id", {"nets": {"private": ["10.0.0.1"]}})}
    value = {"get_attr": ["other", "nets", "private", 0]}
    assert evaluate(value, version, inputs=inputs) == "10.0.0.1"


def test_map_replace_keys_must_become_strings() -> None:
    assert evaluation_problems(
        {"map_replace": [{"a": 1}, {"keys": {"a": {"get_param": "p"}}}]}, parameters={"p": [1]}
    ) == [f"{P}.map_replace: the replacement of key 'a' must be a string"]
