"""The payloads of conv_tasks.stack.history and conv_tasks.stack.overview, checked before any
work: pages bounded, statuses named, markers that are stack ids; and the status filter's
vocabulary."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.read.overview import overview_filter
from conv_tasks.errors import InvalidInput, PayloadError
from conv_tasks.statuses import STATE_FILTERS, parse_state_filter
from conv_tasks.tasks.contracts import public_tasks
from conv_tasks.tasks.payloads import parse_payload

TASKS = public_tasks()
HISTORY, OVERVIEW = "conv_tasks.stack.history", "conv_tasks.stack.overview"
STACK_ID = "5f0c8a52-2b4e-4d7a-9c61-0e3b7d2a8f14"


def _problems(task: str, payload: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(PayloadError) as caught:
        parse_payload(task, payload, TASKS[task])
    return {p.path: p.message for p in caught.value.problems}


def test_defaults_fill_in() -> None:
    assert parse_payload(HISTORY, {"tenant": "t", "stack": "s"}, TASKS[HISTORY]) == {
        "tenant": "t",
        "stack": "s",
        "limit": 20,
        "before": None,
    }
    parsed = parse_payload(OVERVIEW, {"tenant": "t"}, TASKS[OVERVIEW])
    assert (parsed["limit"], parsed["all_tenants"], parsed["marker"]) == (50, False, None)


@pytest.mark.parametrize(
    ("task", "field", "value", "said"),
    [
        (HISTORY, "limit", 0, "must be from 1 to 200 (MAX_HISTORY_PAGE), got 0"),
        (HISTORY, "limit", 10000, "must be from 1 to 200 (MAX_HISTORY_PAGE), got 10000"),
        (HISTORY, "before", -3, "MAX_ID"),
        (HISTORY, "before", "older", "must be an integer"),
        (OVERVIEW, "limit", 501, "must be from 1 to 500 (MAX_OVERVIEW_PAGE), got 501"),
        (OVERVIEW, "marker", "garbage", "must be a stack id (a UUID)"),
        (OVERVIEW, "marker", STACK_ID + "x", "must be a stack id (a UUID)"),
        (OVERVIEW, "status", "FAILED", "must be a JSON list"),
        (OVERVIEW, "name", "a\nb", "control"),
        (OVERVIEW, "all_tenants", "yes", "must be true or false"),
    ],
)
def test_bad_values_are_refused_naming_the_field(
    task: str, field: str, value: Any, said: str
) -> None:
    payload = {"tenant": "t", "stack": "s"} if task == HISTORY else {"tenant": "t"}
    problems = _problems(task, {**payload, field: value})
    assert said in problems[field], problems


def test_status_filters_are_statuses_or_stack_states() -> None:
    problems = _problems(OVERVIEW, {"tenant": "t", "status": ["FAILED", "failed", "INIT_COMPLETE"]})
    assert set(problems) == {"status[1]", "status[2]"}
    assert "CREATE_COMPLETE" in problems["status[1]"]
    problems = _problems(OVERVIEW, {"tenant": "t", "status": ["FAILED"] * 31})
    assert "MAX_STATUS_FILTERS" in problems["status"]
    given = {"tenant": "t", "status": ["IN_PROGRESS", "CHECK_FAILED"], "marker": STACK_ID}
    assert parse_payload(OVERVIEW, given, TASKS[OVERVIEW])["status"] == given["status"]


def test_a_state_filter_matches_a_status_of_any_action_or_one_state() -> None:
    assert parse_state_filter("FAILED") == (None, "FAILED")
    assert parse_state_filter("IN_PROGRESS") == (None, "IN_PROGRESS")
    assert parse_state_filter("ROLLBACK_IN_PROGRESS") == ("ROLLBACK", "IN_PROGRESS")
    assert parse_state_filter("CHECK_FAILED") == ("CHECK", "FAILED")
    for refused in ("", "failed", "INIT_COMPLETE", "SIGNAL_COMPLETE", "CREATE", "COMPLETE_"):
        assert parse_state_filter(refused) is None
    assert parse_state_filter("SUSPEND_COMPLETE") == ("SUSPEND", "COMPLETE")
    assert parse_state_filter("RESUME_FAILED") == ("RESUME", "FAILED")
    assert len(STATE_FILTERS) == 3 + 7 * 3
    assert all(parse_state_filter(value) is not None for value in STATE_FILTERS)


def test_the_overview_filter_splits_statuses_from_states_each_once() -> None:
    chosen = overview_filter(
        None, status=["FAILED", "CREATE_COMPLETE", "FAILED"], tags=["a", "a"], name=""
    )
    assert (chosen.tenant, chosen.statuses, chosen.states) == (
        None,
        ("FAILED",),
        (("CREATE", "COMPLETE"),),
    )
    assert (chosen.tags, chosen.name) == (("a",), None)
    with pytest.raises(InvalidInput) as caught:
        overview_filter("t", status=["NOPE"])
    assert [p.path for p in caught.value.problems] == ["status[0]"]
