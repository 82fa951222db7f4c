"""Turning one property value into its schema type, or saying why it cannot be.

Templates are YAML and values often arrive as strings ("3", "true"), so the
scalar types accept their obvious string forms. Containers are never guessed
from strings. Pure functions; they never look inside sub-schemas.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from conv_tasks.sdk.schema import ANY, BOOLEAN, INTEGER, LIST, MAP, NUMBER, STRING
from conv_tasks.template import TypeMismatch, to_number

_NAMES = {
    STRING: "a string",
    INTEGER: "an integer",
    NUMBER: "a number",
    BOOLEAN: "a boolean (true or false)",
    LIST: "a list",
    MAP: "a map",
}


def _short(text: str) -> str:
    """A value's repr cut to fit a sentence: a refusal must not carry a huge input."""
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


def describe(value: Any) -> str:
    """What a value is, for a sentence: 'the string 'abc'', 'a list'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {_short(repr(value))}"
    if isinstance(value, str):
        return f"the string {_short(repr(value))}"
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def coerce(type_name: str, value: Any) -> tuple[Any, str | None]:
    """(converted value, None) or (value, reason it is not of type_name)."""
    converted = _convert(type_name, value)
    if converted is _NOT_FINITE:
        return value, f"must be a finite number, not {describe(value)}."
    if converted is _BAD:
        return value, f"must be {_NAMES[type_name]}, not {describe(value)}."
    return converted, None


_BAD = object()
_NOT_FINITE = object()


def _convert(type_name: str, value: Any) -> Any:
    if type_name == ANY:
        return value
    if type_name == STRING:
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, int | float):
            return str(value)
        return _BAD
    if type_name == INTEGER:
        return _integer(value)
    if type_name == NUMBER:
        return _number(value)
    if type_name == BOOLEAN:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return _BAD
    if type_name == LIST:
        return list(value) if isinstance(value, list | tuple) else _BAD
    if type_name == MAP:
        return dict(value) if isinstance(value, Mapping) else _BAD
    raise ValueError(f"unknown property type {type_name!r}")


def _integer(value: Any) -> Any:
    if isinstance(value, bool):
        return _BAD
    if isinstance(value, int | str):
        # Whole numbers only: "1.5" and "1e400" are refused as to_number reads them.
        number = _number(value)
        return number if not isinstance(number, float) else _BAD
    if isinstance(value, float):
        if not math.isfinite(value):
            return _NOT_FINITE
        return int(value) if value.is_integer() else _BAD
    return _BAD


def _number(value: Any) -> Any:
    try:
        return to_number(value)
    except TypeMismatch as exc:
        return _NOT_FINITE if "finite" in str(exc) else _BAD
