"""Checking the JSON payloads that other services send to the public tasks.

Every problem in a payload is reported at once, by field name, before
anything is changed. This is the one place every public task's input passes:
the whole payload is measured against conv_tasks.limits first (bytes, depth,
storable strings, finite numbers), then validated against the task's JSON
Schema (payload_schema.py makes it from the task's Fields, conv_tasks.requests), and
each field against its spec (type, name rules, numeric bounds, size), which
words the refusals and checks what a schema cannot say (UTF-8 byte sizes).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from conv_tasks.errors import PayloadError, Problem
from conv_tasks.input_text import name_problem
from conv_tasks.requests import Field
from conv_tasks.tasks.payload_limits import measure_payload
from conv_tasks.tasks.payload_schema import kwargs_schema, schema_paths

_MISSING = object()


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


def _shown_number(value: int) -> str:
    return str(value) if abs(value) < 10**15 else f"{value:.3g}"


def _field_problem(spec: Field, value: Any, size: int) -> str | None:
    """Why a value of the right type breaks the field's rules, or None."""
    if spec.is_name and isinstance(value, str):
        return name_problem(value)
    if spec.max_bytes is not None and size > spec.max_bytes.value:
        return f"is {size} bytes; the limit is {spec.max_bytes.value} bytes ({spec.max_bytes.name})"
    if isinstance(value, int) and spec.high is not None:
        low = spec.low if spec.low is not None else -spec.high.value
        if not low <= value <= spec.high.value:
            return (
                f"must be from {low} to {spec.high.value} ({spec.high.name}), "
                f"got {_shown_number(value)}"
            )
    return None


_validators: dict[tuple[str, str], tuple[dict[str, Any], Draft202012Validator]] = {}


def _validator(task: str, fields: list[Field]) -> tuple[dict[str, Any], Draft202012Validator]:
    key = (task, repr(fields))
    found = _validators.get(key)
    if found is None:
        schema = kwargs_schema(task, fields)
        found = _validators[key] = (schema, Draft202012Validator(schema))
    return found


def _problem(spec: Field, value: Any, size: int) -> str | None:
    """What is wrong with a given value of the field, or None."""
    bad_bool = isinstance(value, bool) and bool not in spec.kinds
    if not isinstance(value, spec.kinds) or bad_bool:
        return f"must be {_kind_names(spec.kinds)}, got {type(value).__name__}"
    if isinstance(value, str) and not value.strip() and spec.required:
        return "must not be empty"
    if spec.items and isinstance(value, list | dict):
        entries = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in entries:
            if not isinstance(item, spec.items) or isinstance(item, bool):
                what = f"item {key}" if isinstance(value, list) else f"the value of {key!r}"
                return f"{what} must be {_kind_names(spec.items)}, got {type(item).__name__}"
    return _field_problem(spec, value, size)


def parse_payload(task: str, payload: Mapping[str, Any], fields: list[Field]) -> dict[str, Any]:
    """Values for every field, defaults filled in; PayloadError listing every problem."""
    measured = measure_payload(payload)
    if measured.too_large:
        raise PayloadError(measured.problems)
    problems: list[Problem] = list(measured.problems)
    schema, validator = _validator(task, fields)
    refused = schema_paths(schema, dict(payload), validator)
    known = {f.name for f in fields}
    for key in sorted(set(measured.sizes) - known):
        problems.append(Problem(key, f"is not an argument of {task} (expected: {sorted(known)})"))
    values: dict[str, Any] = {}
    for spec in fields:
        if spec.name in measured.bad_fields:
            continue
        value = payload.get(spec.name, _MISSING)
        if value is _MISSING or (value is None and not spec.required):
            if spec.required:
                problems.append(Problem(spec.name, f"is required ({_kind_names(spec.kinds)})"))
            values[spec.name] = copy.deepcopy(spec.default)
            continue
        problem = _problem(spec, value, measured.sizes.get(spec.name, 0))
        if problem is None and spec.check is not None:
            found = spec.check(value, spec.name)
            if found:
                problems.extend(found)
                continue
        if problem is None and spec.name in refused:
            problem = "does not match the task's JSON Schema (conv-tasks api schema)"
        if problem is not None:
            problems.append(Problem(spec.name, problem))
            continue
        values[spec.name] = value
    if problems:
        raise PayloadError(problems)
    return values
