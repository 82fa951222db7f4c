"""Numbers in properties are finite, and TestResource's waits are bounded."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.resources import prepare_properties
from conv_tasks.resources.builtin import TestResource

MAX_WAIT_SECS = 3600  # TEMP


def problems_of(**values: Any) -> dict[str, str]:
    with pytest.raises(InvalidInput) as info:
        prepare_properties(TestResource, values, path="resources.t.properties")
    return {p.path: p.message for p in info.value.problems}


@pytest.mark.parametrize("number", [10**400, -(10**400), "1e400", float("inf")])
def test_number_properties_must_be_finite(number: Any) -> None:
    assert list(problems_of(wait_secs=number)) == ["resources.t.properties.wait_secs"]


@pytest.mark.parametrize(
    "values",
    [
        {"wait_secs": MAX_WAIT_SECS + 1},
        {"wait_secs": 1e300},
        {"action_wait_secs": {"create": 10**12}},
        {"action_timeout_secs": 1e300},
    ],
)
def test_waits_and_timeouts_are_bounded(values: dict[str, Any]) -> None:
    problems = problems_of(**values)
    assert len(problems) == 1
    assert str(MAX_WAIT_SECS) in next(iter(problems.values()))


def test_a_wait_at_the_bound_is_accepted() -> None:
    values = {"wait_secs": MAX_WAIT_SECS, "action_timeout_secs": MAX_WAIT_SECS}
    prepared = prepare_properties(TestResource, values, path="resources.t.properties")
    assert prepared["wait_secs"] == MAX_WAIT_SECS
