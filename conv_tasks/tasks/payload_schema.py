"""The JSON Schema (Draft 2020-12) of a public task's keyword arguments, made from its Fields.

The schema is generated from the same Field specs the worker checks
(conv_tasks.requests.Field), so it cannot drift from them, and the worker
validates every payload with it (jsonschema) after the limits are measured.
It says what JSON Schema can say: each field's JSON types, which fields are
required, that no other key is allowed, integer bounds, string lengths, and
for names the characters refused (control, format and line/paragraph
separator characters of the Basic Multilingual Plane). The worker checks a
little more than the schema can express; `x-conv-tasks` notes say what: the
exact UTF-8 byte size of a field (`maxBytes`; the schema's maxLength counts
characters, a looser bound), the whole payload's size and depth, that every
string is storable text, and format characters beyond U+FFFF in names. A
payload the schema refuses is refused by the worker at the same paths.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from conv_tasks.limits import MAX_NAME_CHARS, MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH
from conv_tasks.requests import Field

DRAFT = "https://json-schema.org/draft/2020-12/schema"
JSON_TYPES: dict[type, str] = {
    str: "string",
    int: "integer",
    bool: "boolean",
    dict: "object",
    list: "array",
    float: "number",
}
# The characters names must not hold (conv_tasks.input_text), as far as a pattern both
# Python's re and ECMA-262 read alike can list them: the Basic Multilingual Plane.
_REFUSED_IN_NAMES = ("Cc", "Cf", "Zl", "Zp")


def _ranges(codes: Iterable[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return ranges


def _name_pattern() -> str:
    refused = (
        code for code in range(0x10000) if unicodedata.category(chr(code)) in _REFUSED_IN_NAMES
    )
    parts = [
        f"\\u{low:04X}" if low == high else f"\\u{low:04X}-\\u{high:04X}"
        for low, high in _ranges(refused)
    ]
    return f"^[^{''.join(parts)}]*$"


NAME_PATTERN = _name_pattern()
NOT_BLANK = r"\S"


def field_schema(spec: Field) -> dict[str, Any]:
    """One field's schema; an optional field also takes null, which means absent."""
    types = [JSON_TYPES[kind] for kind in spec.kinds]
    if not spec.required:
        types.append("null")
    schema: dict[str, Any] = {"type": types[0] if len(types) == 1 else types}
    if spec.description:
        schema["description"] = spec.description
    if not spec.required:
        schema["default"] = spec.default
    notes: dict[str, Any] = {}
    if spec.items:
        item_types = [JSON_TYPES[kind] for kind in spec.items]
        item_schema = {"type": item_types[0] if len(item_types) == 1 else item_types}
        schema["items" if list in spec.kinds else "additionalProperties"] = item_schema
    if str in spec.kinds:
        lengths: list[int] = []
        patterns: list[str] = []
        if spec.required:
            schema["minLength"] = 1
            patterns.append(NOT_BLANK)
        if spec.is_name:
            lengths.append(MAX_NAME_CHARS)
            patterns.append(NAME_PATTERN)
            notes["name"] = True
        if spec.max_bytes is not None:
            lengths.append(spec.max_bytes.value)
        if lengths:
            schema["maxLength"] = min(lengths)
        if len(patterns) == 1:
            schema["pattern"] = patterns[0]
        elif patterns:
            schema["allOf"] = [{"pattern": pattern} for pattern in patterns]
    if int in spec.kinds and spec.high is not None:
        schema["minimum"] = spec.low if spec.low is not None else -spec.high.value
        schema["maximum"] = spec.high.value
    if spec.max_bytes is not None:
        notes["maxBytes"] = spec.max_bytes.value
        notes["limit"] = spec.max_bytes.name
    if spec.schema:
        schema.update(spec.schema)
    if notes:
        schema["x-conv-tasks"] = notes
    return schema


def kwargs_schema(task: str, fields: Sequence[Field]) -> dict[str, Any]:
    """The schema of the keyword arguments (the message's kwargs object) of `task`."""
    return {
        "$schema": DRAFT,
        "$id": f"urn:conv-tasks:task:{task}:kwargs",
        "title": f"{task} kwargs",
        "type": "object",
        "properties": {spec.name: field_schema(spec) for spec in fields},
        "required": [spec.name for spec in fields if spec.required],
        "additionalProperties": False,
        "x-conv-tasks": {
            "maxPayloadBytes": MAX_PAYLOAD_BYTES,
            "maxPayloadDepth": MAX_PAYLOAD_DEPTH,
            "storableText": "no string may hold NUL or a lone surrogate",
        },
    }


def schema_paths(schema: dict[str, Any], payload: object, validator: Any) -> dict[str, None]:
    """The top-level paths (argument names, unknown keys) the schema refuses, in order."""
    paths: dict[str, None] = {}
    if not isinstance(payload, dict):
        return {"": None}
    for error in validator.iter_errors(payload):
        if error.validator == "required" and not error.absolute_path:
            for name in schema["required"]:
                if name not in payload:
                    paths.setdefault(name)
        elif error.validator == "additionalProperties" and not error.absolute_path:
            for key in payload:
                if key not in schema["properties"]:
                    paths.setdefault(str(key))
        elif error.absolute_path:
            paths.setdefault(str(error.absolute_path[0]))
        else:
            paths.setdefault("")
    return paths
