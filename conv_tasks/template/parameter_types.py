"""Converts a parameter value to its declared type (string, number, boolean, json, list).

Errors say what was expected, never what was given: the caller decides whether the value
may be shown (it must not be for hidden parameters).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

# The largest integer a 64-bit float holds.
FLOAT_MAX = int(sys.float_info.max)
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


class TypeMismatch(Exception):
    """The value cannot be read as the type. The message completes 'the value ...'."""


def coerce(type_name: str, value: Any) -> Any:
    """value converted to type_name. Raises TypeMismatch."""
    if type_name == "string":
        return _string(value)
    if type_name == "number":
        return to_number(value)
    if type_name == "boolean":
        return _boolean(value)
    if type_name == "json":
        return _json(value)
    if type_name == "comma_delimited_list":
        return _list(value)
    raise TypeMismatch(f"has the unknown type '{type_name}'")


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    raise TypeMismatch("is not a string")


def to_number(value: Any) -> int | float:
    """An int or finite float from a number or numeric string. Raises TypeMismatch."""
    # bool is an int in Python, but true is not a number in a template.
    if isinstance(value, bool):
        raise TypeMismatch("is not a number")
    if isinstance(value, int):
        return _finite_int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeMismatch("is not a finite number")
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return _finite_int(int(text))
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            raise TypeMismatch("is not a number") from None
        if not math.isfinite(number):
            raise TypeMismatch("is not a finite number")
        return number
    raise TypeMismatch("is not a number")


def _finite_int(value: int) -> int:
    """value, if a 64-bit float can hold its magnitude: JSON readers (PostgreSQL's among
    them, and every other service's) treat a number past that as infinite or refuse it."""
    if abs(value) > FLOAT_MAX:
        raise TypeMismatch("is not a finite number (it is beyond a 64-bit float)")
    return value


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise TypeMismatch("is not a boolean (true/false, yes/no, on/off or 1/0)")


def _json(value: Any) -> dict[str, Any] | list[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise TypeMismatch("is not valid JSON") from None
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, list | tuple):
        return list(value)
    raise TypeMismatch("is not a JSON object or list")


def _list(value: Any) -> list[str]:
    if isinstance(value, str):
        if not value.strip():
            return []
        return [item.strip() for item in value.split(",")]
    if isinstance(value, list | tuple):
        items = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                raise TypeMismatch("is not a list of strings")
            items.append(item if isinstance(item, str) else str(item))
        return items
    raise TypeMismatch("is not a comma-delimited list")
