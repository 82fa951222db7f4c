"""The environment and files arguments of the public tasks: payload checks and JSON Schema."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conv_tasks.errors import PayloadError
from conv_tasks.requests import Field, NewStackRequest, task_fields
from conv_tasks.tasks.payload_schema import kwargs_schema
from conv_tasks.tasks.payloads import parse_payload

TASK = "conv_tasks.stack.example"
FIELDS = [
    Field("tenant", (str,), required=True),
    *(f for f in task_fields(NewStackRequest) if f.name in ("environment", "files")),
]


def problems_of(**payload: Any) -> dict[str, str]:
    with pytest.raises(PayloadError) as caught:
        parse_payload(TASK, {"tenant": "t", **payload}, FIELDS)
    return {p.path: p.message for p in caught.value.problems}


def test_mappings_and_texts_are_accepted_and_default_to_none() -> None:
    given = {"environment": [{"parameters": {}}, "parameters: {}\n"], "files": {"a": "x"}}
    assert parse_payload(TASK, {"tenant": "t", **given}, FIELDS) == {"tenant": "t", **given}
    assert parse_payload(TASK, {"tenant": "t"}, FIELDS) == {
        "tenant": "t",
        "environment": [],
        "files": {},
    }


def test_items_of_the_wrong_kind_are_named() -> None:
    assert problems_of(environment=[{}, 3]) == {
        "environment": "item 1 must be a JSON object or a string, got int"
    }
    assert problems_of(files={"a.txt": ["x"]}) == {
        "files": "the value of 'a.txt' must be a string, got list"
    }
    assert problems_of(environment={"parameters": {}}) == {
        "environment": "must be a JSON list, got dict"
    }


def test_the_schema_says_the_same() -> None:
    validator = Draft202012Validator(kwargs_schema(TASK, FIELDS))
    assert validator.is_valid({"tenant": "t", "environment": ["a: 1", {}], "files": {"a": "x"}})
    assert not validator.is_valid({"tenant": "t", "environment": [True]})
    assert not validator.is_valid({"tenant": "t", "files": {"a": 1}})
