"""str_replace (plain, JSON, strict, very strict), list_join, str_split, digest, make_url:
results, argument checks at load time and data errors at evaluation, per version."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from tests.template.function_support import evaluate, evaluation_problems, load_problems

P = "resources.r.properties.v"


def replace(template: Any, params: Any, name: str = "str_replace") -> dict[str, Any]:
    return {name: {"template": template, "params": params}}


def test_str_replace_prefers_longer_keys_then_alphabetical_and_never_twice() -> None:
    assert evaluate(replace("$a $ab $b", {"$a": "X", "$ab": "Y", "$b": "$a"})) == "X Y $a"
    # Heat replaces the longest key everywhere first: "bcd" wins over "ab" in "abcd".
    assert evaluate(replace("abcd", {"ab": "1", "bcd": "2"})) == "a2"
    assert evaluate(replace("abc", {"bc": "2", "ab": "1"})) == "1c"


def test_str_replace_scalars_as_heat_writes_them() -> None:
    assert evaluate(replace("n=N b=B f=F z=Z", {"N": 3, "B": True, "F": 1.5, "Z": None})) == (
        "n=3 b=True f=1.5 z="
    )


def test_str_replace_serialises_maps_and_lists_from_2015_10_15() -> None:
    params = {"$x": {"b": 1, "a": [1, "x"]}}
    assert evaluate(replace("v=$x", params), "2015-10-15") == 'v={"a": [1, "x"], "b": 1}'
    assert evaluation_problems(replace("v=$x", params), "2015-04-30") == [
        f"{P}.str_replace: params must be strings or numbers; '$x' is not"
    ]


def test_str_replace_strict_needs_every_param_in_the_template() -> None:
    assert evaluate(replace("a $x", {"$x": "1"}, "str_replace_strict"), "2017-02-24") == "a 1"
    assert evaluation_problems(
        replace("a $x", {"$x": "1", "$y": "2", "$zz": ""}, "str_replace_strict")
    ) == [f"{P}.str_replace_strict: these params are not in the template: $zz, $y"]
    # Empty values are fine for the strict form.
    assert evaluate(replace("a$x", {"$x": ""}, "str_replace_strict")) == "a"


@pytest.mark.parametrize("empty", [None, "", [], {}])
def test_str_replace_vstrict_refuses_empty_values(empty: Any) -> None:
    assert evaluation_problems(replace("a $x", {"$x": empty}, "str_replace_vstrict")) == [
        f"{P}.str_replace_vstrict: param '$x' has no value or an empty one, which is not allowed"
    ]
    assert evaluate(replace("a $x", {"$x": 0}, "str_replace_vstrict")) == "a 0"


def test_strict_forms_need_their_versions() -> None:
    assert load_problems(replace("a", {}, "str_replace_strict"), "2016-10-14") == [
        f"{P}.str_replace_strict: the function 'str_replace_strict' needs "
        "heat_template_version 2017-02-24 or later (this template is 2016-10-14)"
    ]
    assert load_problems(replace("a", {}, "str_replace_vstrict"), "2017-02-24")[0].endswith(
        "needs heat_template_version 2017-09-01 or later (this template is 2017-02-24)"
    )


def test_list_join_versions() -> None:
    joined = {"list_join": [",", ["a", None], ["b", {"k": 1}], None]}
    assert evaluate(joined, "2015-10-15") == 'a,,b,{"k": 1}'
    assert evaluate({"list_join": ["-", ["a", "b"]]}, "2013-05-23") == "a-b"
    assert evaluate({"list_join": ["-", ["a", 2, True]]}, "2013-05-23") == "a-2-true"
    assert evaluation_problems({"list_join": ["-", ["a", {"k": 1}]]}, "2015-04-30") == [
        f"{P}.list_join: items to join must be strings or numbers, not {{'k': 1}}"
    ]
    assert evaluation_problems({"list_join": ["-", {"get_param": "p"}]}, parameters={"p": "s"}) == [
        f"{P}.list_join: argument 1 must be a list"
    ]


def test_str_split() -> None:
    assert evaluate({"str_split": [",", "a,b,c"]}, "2015-10-15") == ["a", "b", "c"]
    assert evaluate({"str_split": [",", "a,b,c", 2]}) == "c"
    assert evaluate({"str_split": [",", "a,b,c", "1"]}) == "b"
    assert evaluation_problems({"str_split": [",", "a,b", 5]}) == [
        f"{P}.str_split: index 5 is out of range: the string splits into 2 items (0 to 1)"
    ]
    assert load_problems({"str_split": [",", "a", "x"]}) == [
        f"{P}.str_split: the index must be an integer"
    ]
    assert load_problems({"str_split": [",", "a"]}, "2015-04-30")[0].endswith(
        "needs heat_template_version 2015-10-15 or later (this template is 2015-04-30)"
    )


def test_digest() -> None:
    expected = hashlib.sha512(b"text").hexdigest()
    assert evaluate({"digest": ["sha512", "text"]}, "2015-04-30") == expected
    assert evaluate({"digest": ["MD5", "text"]}) == hashlib.md5(b"text").hexdigest()
    assert load_problems({"digest": ["rot13", "x"]})[0].startswith(
        f"{P}.digest: unknown algorithm 'rot13'"
    )
    assert load_problems({"digest": ["md5"]}) == [
        f"{P}.digest: the argument must be a list [algorithm, value]"
    ]
    assert load_problems({"digest": ["md5", "x"]}, "2014-10-16")[0].endswith(
        "needs heat_template_version 2015-04-30 or later (this template is 2014-10-16)"
    )


def test_make_url() -> None:
    url = {
        "scheme": "https",
        "username": "me@home",
        "password": "p:w",
        "host": "2001:db8::1",
        "port": 8443,
        "path": "/a b/c",
        "query": {"q": "x/y", "n": "1 2"},
        "fragment": "top part",
    }
    assert evaluate({"make_url": url}) == (
        "https://me%40home:p%3Aw@[2001:db8::1]:8443/a%20b/c?q=x/y&n=1+2#top%20part"
    )
    assert evaluate({"make_url": {"scheme": "http", "host": "example.com"}}) == (
        "http://example.com"
    )


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"host": "h", "colour": "red"}, "unknown key 'colour'; expected one of scheme"),
        ({"port": 70000}, "'port' must be an integer from 1 to 65535"),
        ({"query": "a=b"}, "'query' must be a map"),
        ({"host": 3}, "'host' must be a string"),
    ],
)
def test_make_url_argument_problems(args: dict[str, Any], reason: str) -> None:
    [problem] = load_problems({"make_url": args})
    assert problem.startswith(f"{P}.make_url: {reason}")


def test_make_url_data_problems_name_the_path() -> None:
    assert evaluation_problems(
        {"make_url": {"scheme": {"get_param": "p"}, "host": "h"}}, parameters={"p": "a:b"}
    ) == [f"{P}.make_url: 'scheme' must not contain ':'"]


def test_digest_of_an_algorithm_hashlib_lists_but_cannot_use_is_an_error() -> None:
    assert evaluation_problems({"digest": ["shake_128", "x"]})[0].startswith(
        f"{P}.digest: algorithm 'shake_128' cannot be used"
    )
