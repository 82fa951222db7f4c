"""The progress view counts resources by their latest status, not events."""

from __future__ import annotations

import pytest

from conv_tasks.cli.render.progress import ProgressView, expected_status, resource_counts


def event(resource: str | None, status: str) -> dict[str, object]:
    return {"resource_name": resource, "status": status, "time": "", "reason": ""}


def test_thirty_resources_count_thirty_not_their_events(capsys: pytest.CaptureFixture[str]) -> None:
    view = ProgressView(live=False)
    view.event(event(None, "CREATE_IN_PROGRESS"))
    for n in range(30):
        view.event(event(f"r{n}", "CREATE_IN_PROGRESS"))
    for n in range(15):
        view.event(event(f"r{n}", "CREATE_COMPLETE"))
    view.event(event("r29", "CREATE_FAILED"))
    assert view.summary() == "30 resources: 15 complete, 14 in progress, 1 failed"
    capsys.readouterr()


def test_counts_name_each_state_once_in_a_fixed_order() -> None:
    latest = {"a": "DELETE_COMPLETE", "b": "UPDATE_IN_PROGRESS", "c": "INIT_COMPLETE"}
    assert resource_counts(latest) == "3 resources: 2 complete, 1 in progress"
    assert resource_counts({"a": "CREATE_FAILED"}) == "1 resource: 1 failed"
    assert resource_counts({}) == "0 resources"


@pytest.mark.parametrize(
    ("started", "expected"),
    [
        ({"action": "CREATE", "status": "CREATE_IN_PROGRESS"}, "CREATE_COMPLETE"),
        ({"action": "DELETE", "status": "DELETE_IN_PROGRESS"}, "DELETE_COMPLETE"),
        ({"action": "ROLLBACK", "status": "ROLLBACK_IN_PROGRESS"}, "ROLLBACK_COMPLETE"),
        # cancel --no-rollback: the update stopped, as asked.
        ({"action": "UPDATE", "status": "UPDATE_FAILED"}, "UPDATE_FAILED"),
    ],
)
def test_the_status_that_means_success(started: dict[str, str], expected: str) -> None:
    assert expected_status(started) == expected
