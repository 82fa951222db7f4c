"""Checking the JSON payloads that other services send to the public tasks.

Every problem in a payload is reported at once, by field name, before
anything is changed.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import PayloadError, Problem

_MISSING = object()


@dataclass(frozen=True)
class Field:
    name: str
    kinds: tuple[type, ...]
    required: bool = False
    default: Any = None
    description: str = ""


def _kind_names(kinds: tuple[type, ...]) -> str:
    names = {
        str: "a string",
        int: "an integer",
        bool: "true or false",
        dict: "a JSON object",
        list: "a JSON list",
        float: "a number",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def parse_payload(task: str, payload: Mapping[str, Any], fields: list[Field]) -> dict[str, Any]:
    """Values for every field, defaults filled in; PayloadError listing every problem."""
    problems: list[Problem] = []
    known = {f.name for f in fields}
    for key in sorted(set(payload) - known):
        problems.append(Problem(key, f"is not an argument of {task} (expected: {sorted(known)})"))
    values: dict[str, Any] = {}
    for spec in fields:
        value = payload.get(spec.name, _MISSING)
        if value is _MISSING or (value is None and not spec.required):
            if spec.required:
                problems.append(Problem(spec.name, f"is required ({_kind_names(spec.kinds)})"))
            values[spec.name] = copy.deepcopy(spec.default)
            continue
        bad_bool = isinstance(value, bool) and bool not in spec.kinds
        if not isinstance(value, spec.kinds) or bad_bool:
            problems.append(
                Problem(spec.name, f"must be {_kind_names(spec.kinds)}, got {type(value).__name__}")
            )
            continue
        if isinstance(value, str) and not value.strip() and spec.required:
            problems.append(Problem(spec.name, "must not be empty"))
            continue
        values[spec.name] = value
    if problems:
        raise PayloadError(problems)
    return values
