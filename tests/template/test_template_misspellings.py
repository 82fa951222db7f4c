"""Maps meant as function calls ({list_jion: ...}): conv_tasks/template/misspellings.py."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.template import misspelt_function


@pytest.mark.parametrize(
    ("value", "meant"),
    [
        ({"list_jion": [",", ["a"]]}, "list_join"),
        ({"get_atr": ["web", "output"]}, "get_attr"),
        ({"get_parm": "size"}, "get_param"),
        ({"str_replce": {"template": "x", "params": {}}}, "str_replace"),
    ],
)
def test_a_map_nearly_a_call_is_named(value: dict[str, Any], meant: str) -> None:
    [key] = value
    assert misspelt_function(value) == f"'{key}' is not a function; did you mean '{meant}'?"


@pytest.mark.parametrize(
    "value",
    [
        {"note": {"get_attr": ["web", "output"]}},  # a word, not a short function misspelt
        {"get_param": "size"},  # a call
        {"list_jion": [",", ["a"]], "more": 1},  # two keys: data
        {"get_atr": 3},  # not the arguments get_attr takes
        {"colour": "red"},
        ["list_jion"],
        "get_parm",
    ],
)
def test_anything_else_is_not(value: Any) -> None:
    assert misspelt_function(value) is None
