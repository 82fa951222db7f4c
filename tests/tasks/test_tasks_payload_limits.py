"""Public tasks refuse hostile payloads by field before touching the database.

The tasks are called in-process (`task.run(...)`): every payload here is
refused by the payload checks, so no database or broker is needed.
"""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks import limits
from conv_tasks.tasks import stack

TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {}}


def refusal(task: Any, **payload: Any) -> dict[str, str]:
    """The problems of a refused call, by path; fails if the call was not refused."""
    result = task.run(**payload)
    assert result["ok"] is False, result
    assert result["error"] == "invalid_payload", result
    return {p["path"]: p["message"] for p in result["problems"]}


@pytest.mark.parametrize(
    ("task", "payload", "field"),
    [
        (stack.show, {"tenant": "t", "stack": "a\x00b"}, "stack"),
        (stack.list_, {"tenant": "\x00"}, "tenant"),
        (stack.events, {"tenant": "t\x00", "stack": "s"}, "tenant"),
        (stack.delete, {"tenant": "t", "stack": "\x00"}, "stack"),
        (stack.signal, {"tenant": "t", "stack": "s", "resource": "r\x00"}, "resource"),
        (stack.create, {"tenant": "t", "name": "a\x00", "template": TEMPLATE}, "name"),
    ],
)
def test_nul_in_a_name_is_refused_naming_the_field(
    task: Any, payload: dict[str, Any], field: str
) -> None:
    problems = refusal(task, **payload)
    assert list(problems) == [field]
    assert "NUL" in problems[field]


@pytest.mark.parametrize("value", ["a\nb", "a\tb", "\x1b[31mred", "a\x7fb", "a\x85b"])
def test_control_characters_in_names_are_refused(value: str) -> None:
    problems = refusal(stack.show, tenant=value, stack="s")
    assert list(problems) == ["tenant"]
    assert "control character" in problems["tenant"]


def test_nul_anywhere_in_the_payload_is_refused_with_its_path() -> None:
    template = {**TEMPLATE, "description": "x\x00y"}
    problems = refusal(stack.create, tenant="t", name="s", template=template)
    assert list(problems) == ["template.description"]
    assert "NUL" in problems["template.description"]
    problems = refusal(
        stack.create, tenant="t", name="s", template=TEMPLATE, parameters={"p\x00": "v"}
    )
    assert list(problems) == ["parameters"]


def test_strings_that_are_not_unicode_text_are_refused() -> None:
    problems = refusal(stack.create, tenant="t", name="s", template={**TEMPLATE, "x": "\ud800"})
    assert list(problems) == ["template.x"]
    assert "surrogate" in problems["template.x"]


@pytest.mark.parametrize("field", ["tenant", "stack"])
def test_names_longer_than_the_limit_are_refused_naming_it(field: str) -> None:
    payload = {"tenant": "t", "stack": "s", field: "x" * (limits.MAX_NAME_CHARS + 1)}
    problems = refusal(stack.show, **payload)
    assert list(problems) == [field]
    assert "MAX_NAME_CHARS" in problems[field]
    assert len(problems[field]) < 300  # the value is not echoed back


def test_a_name_at_the_limit_is_not_refused_for_its_length() -> None:
    result = stack.create.run(
        tenant="t", name="s" * limits.MAX_NAME_CHARS, template={"bad": 1}, timeout_mins=5
    )
    # Refused for the template only, not for the name's length.
    assert result["error"] == "invalid_template"


@pytest.mark.parametrize("timeout", [-1, 0, limits.MAX_TIMEOUT_MINS + 1, 2**31, 2**70, -(2**70)])
def test_timeout_outside_its_bounds_is_refused(timeout: int) -> None:
    for task, extra in (
        (stack.create, {"name": "s", "template": TEMPLATE}),
        (stack.update, {"stack": "s"}),
    ):
        problems = refusal(task, tenant="t", timeout_mins=timeout, **extra)
        assert list(problems) == ["timeout_mins"]
        assert str(limits.MAX_TIMEOUT_MINS) in problems["timeout_mins"]
        assert "MAX_TIMEOUT_MINS" in problems["timeout_mins"]


@pytest.mark.parametrize("after_id", [-1, 2**63, 2**70])
def test_event_cursor_outside_a_bigint_is_refused(after_id: int) -> None:
    problems = refusal(stack.events, tenant="t", stack="s", after_id=after_id)
    assert list(problems) == ["after_id"]


@pytest.mark.parametrize(
    ("latest", "said"),
    [
        (-1, "must be from 0 to 10000 (MAX_LATEST_EVENTS), got -1"),
        (limits.MAX_LATEST_EVENTS + 1, "must be from 0 to 10000 (MAX_LATEST_EVENTS), got 10001"),
        (2**70, "(MAX_LATEST_EVENTS)"),
        ("100", "must be an integer"),
        (1.5, "must be an integer"),
        (True, "must be an integer"),
        ([100], "must be an integer"),
    ],
)
def test_latest_events_outside_its_bounds_or_not_an_integer_is_refused(
    latest: Any, said: str
) -> None:
    problems = refusal(stack.events, tenant="t", stack="s", after_id=5, latest=latest)
    assert list(problems) == ["latest"]
    assert said in problems["latest"], problems


@pytest.mark.parametrize("number", [float("inf"), float("-inf"), float("nan"), 10**400])
def test_numbers_must_be_finite_anywhere_in_the_payload(number: float) -> None:
    problems = refusal(stack.signal, tenant="t", stack="s", resource="r", details={"n": [number]})
    assert list(problems) == ["details.n.0"]
    assert "finite" in problems["details.n.0"]


def test_payload_nested_past_the_limit_is_refused_naming_it() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    problems = refusal(stack.signal, tenant="t", stack="s", resource="r", details={"x": deep})
    [(path, message)] = problems.items()
    assert path.startswith("details.x.0.0")
    assert "MAX_PAYLOAD_DEPTH" in message


def test_payload_larger_than_the_limit_is_refused_naming_it() -> None:
    big = "x" * (limits.MAX_PAYLOAD_BYTES + 1)
    problems = refusal(stack.signal, tenant="t", stack="s", resource="r", details={"x": big})
    assert list(problems) == [""]
    assert "MAX_PAYLOAD_BYTES" in problems[""]


def test_template_larger_than_its_limit_is_refused_naming_it() -> None:
    text = "# " + "x" * limits.MAX_TEMPLATE_BYTES
    problems = refusal(stack.create, tenant="t", name="s", template=text)
    assert list(problems) == ["template"]
    assert "MAX_TEMPLATE_BYTES" in problems["template"]
    mapping = {**TEMPLATE, "description": "x" * limits.MAX_TEMPLATE_BYTES}
    problems = refusal(stack.create, tenant="t", name="s", template=mapping)
    assert list(problems) == ["template"]


def test_signal_reason_longer_than_its_limit_is_refused() -> None:
    details = {"deploy_status_reason": "x" * (limits.MAX_REASON_CHARS + 1)}
    problems = refusal(stack.signal, tenant="t", stack="s", resource="r", details=details)
    assert list(problems) == ["details.deploy_status_reason"]
    assert "MAX_REASON_CHARS" in problems["details.deploy_status_reason"]


def test_every_problem_is_reported_at_once() -> None:
    problems = refusal(
        stack.create, tenant="\x00", name="s" * 300, template=TEMPLATE, timeout_mins=-1
    )
    assert sorted(problems) == ["name", "tenant", "timeout_mins"]
