"""parse_payload: the JSON kwargs of a public task, checked against Field specs."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import PayloadError
from conv_tasks.requests import Field
from conv_tasks.tasks.payloads import parse_payload

TASK = "conv_tasks.stack.example"
FIELDS = [
    Field("tenant", (str,), required=True),
    Field("template", (dict, str), required=True),
    Field("parameters", (dict,), default={"from": "default"}),
    Field("disable_rollback", (bool,), default=False),
    Field("timeout_mins", (int,)),
    Field("label", (str,), default="none"),
]


def parse(**payload: Any) -> dict[str, Any]:
    return parse_payload(TASK, payload, FIELDS)


def problems_of(**payload: Any) -> dict[str, str]:
    with pytest.raises(PayloadError) as caught:
        parse(**payload)
    return {p.path: p.message for p in caught.value.problems}


def test_valid_payload_gives_every_field_with_defaults() -> None:
    assert parse(tenant="t1", template={"resources": {}}) == {
        "tenant": "t1",
        "template": {"resources": {}},
        "parameters": {"from": "default"},
        "disable_rollback": False,
        "timeout_mins": None,
        "label": "none",
    }


def test_given_values_override_defaults() -> None:
    values = parse(
        tenant="t1",
        template="heat_template_version: 2018-08-31",
        parameters={"a": 1},
        disable_rollback=True,
        timeout_mins=5,
        label="",
    )
    assert values["parameters"] == {"a": 1}
    assert values["disable_rollback"] is True
    assert values["timeout_mins"] == 5
    assert values["template"] == "heat_template_version: 2018-08-31"
    # An empty string is fine where the field is optional.
    assert values["label"] == ""


def test_none_for_an_optional_field_is_treated_as_absent() -> None:
    values = parse(tenant="t1", template={}, parameters=None, disable_rollback=None, label=None)
    assert values["parameters"] == {"from": "default"}
    assert values["disable_rollback"] is False
    assert values["label"] == "none"


@pytest.mark.parametrize("missing", ["tenant", "template"])
def test_missing_required_field_is_named(missing: str) -> None:
    payload = {"tenant": "t1", "template": {}}
    del payload[missing]
    problems = problems_of(**payload)
    assert list(problems) == [missing]
    assert problems[missing].startswith("is required")


def test_required_message_says_what_kinds_are_expected() -> None:
    assert problems_of(tenant="t1") == {"template": "is required (a JSON object or a string)"}


def test_none_for_a_required_field_is_a_problem() -> None:
    assert list(problems_of(tenant=None, template={})) == ["tenant"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("timeout_mins", True, "must be an integer, got bool"),
        ("timeout_mins", False, "must be an integer, got bool"),
        ("timeout_mins", "5", "must be an integer, got str"),
        ("timeout_mins", 5.0, "must be an integer, got float"),
        ("disable_rollback", 1, "must be true or false, got int"),
        ("disable_rollback", "yes", "must be true or false, got str"),
        ("parameters", [], "must be a JSON object, got list"),
        ("template", 3, "must be a JSON object or a string, got int"),
        ("tenant", {"id": 1}, "must be a string, got dict"),
    ],
)
def test_wrong_type_is_named(field: str, value: Any, message: str) -> None:
    payload: dict[str, Any] = {"tenant": "t1", "template": {}, field: value}
    assert problems_of(**payload) == {field: message}


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_empty_required_string_is_rejected(blank: str) -> None:
    assert problems_of(tenant=blank, template={}) == {"tenant": "must not be empty"}


def test_unknown_keys_are_each_listed_with_the_expected_names() -> None:
    problems = problems_of(tenant="t1", template={}, zzz=1, aaa=2)
    assert list(problems) == ["aaa", "zzz"]
    expected = sorted(f.name for f in FIELDS)
    assert problems["aaa"] == f"is not an argument of {TASK} (expected: {expected})"


def test_every_problem_is_reported_together() -> None:
    with pytest.raises(PayloadError) as caught:
        parse(template=7, timeout_mins=True, bogus=None)
    paths = sorted(p.path for p in caught.value.problems)
    assert paths == ["bogus", "template", "tenant", "timeout_mins"]
    assert "(4 problems)" in str(caught.value)


def test_empty_payload_lists_every_required_field() -> None:
    assert sorted(problems_of()) == ["template", "tenant"]


def test_no_fields_accepts_only_an_empty_payload() -> None:
    assert parse_payload(TASK, {}, []) == {}
    with pytest.raises(PayloadError, match="is not an argument of"):
        parse_payload(TASK, {"x": 1}, [])
