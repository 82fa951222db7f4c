"""Counting what an operation did from its events, and the line a failure ends with."""

from __future__ import annotations

from typing import Any

from conv_tasks.cli.render.outcome import failure_line, phases_of, resources_text


def event(who: str | None, action: str, status: str, reason: str = "") -> dict[str, Any]:
    return {
        "resource_name": who,
        "action": action,
        "status": f"{action}_{status}",
        "reason": reason,
    }


UPDATE_THAT_ROLLS_BACK = [
    event(None, "UPDATE", "IN_PROGRESS"),
    event("inplace", "UPDATE", "IN_PROGRESS"),
    event("inplace", "UPDATE", "COMPLETE"),
    event("added", "DELETE", "IN_PROGRESS"),
    event("added", "DELETE", "COMPLETE"),
    event("repl", "CREATE", "IN_PROGRESS", "replacing version 1"),
    event("repl", "CREATE", "COMPLETE"),
    event("bad", "CREATE", "IN_PROGRESS"),
    event("bad", "CREATE", "FAILED", "asked to"),
    event(None, "UPDATE", "FAILED", "1 created, 1 updated, 1 deleted, 1 failed (bad: asked to)"),
    event(None, "ROLLBACK", "IN_PROGRESS", "UPDATE failed; rolling back"),
    event("inplace", "UPDATE", "COMPLETE"),
    event("added", "CREATE", "COMPLETE"),
    event("repl", "UPDATE", "COMPLETE", "version 1 reinstated"),
    event("repl", "DELETE", "COMPLETE"),
    event(None, "ROLLBACK", "COMPLETE", "Stack ROLLBACK completed successfully"),
]


def test_an_update_and_its_rollback_are_counted_apart() -> None:
    first, rollback = phases_of(UPDATE_THAT_ROLLS_BACK, "UPDATE")
    assert (first.action, first.state) == ("UPDATE", "UPDATE_FAILED")
    # The replacement's old version was not deleted before the update failed: a create.
    assert first.counts() == {"created": 1, "updated": 1, "replaced": 0, "deleted": 1, "failed": 1}
    assert (rollback.action, rollback.state) == ("ROLLBACK", "ROLLBACK_COMPLETE")
    # A version reinstated and the other deleted: a replacement back.
    assert rollback.counts() == {
        "created": 1,
        "updated": 1,
        "replaced": 1,
        "deleted": 0,
        "failed": 0,
    }


def test_an_operation_the_watchdog_resumed_is_one_phase() -> None:
    resumed = "Traversal made no progress for 25s; resumed from the database by the watchdog"
    events = [
        event(None, "CREATE", "IN_PROGRESS", "Stack CREATE started"),
        event("a", "CREATE", "IN_PROGRESS"),
        *[event(None, "CREATE", "IN_PROGRESS", resumed) for _ in range(12)],
        event("a", "CREATE", "COMPLETE"),
        event("b", "CREATE", "COMPLETE"),
        event(None, "CREATE", "COMPLETE", "Stack CREATE completed successfully"),
    ]
    [phase] = phases_of(events, "CREATE")
    assert phase.state == "CREATE_COMPLETE"
    assert resources_text([phase]) == (
        "Resources: 2 created, 0 updated, 0 replaced, 0 deleted, 0 failed."
    )


def test_the_failure_line_says_the_engines_summary_then_what_the_rollback_did() -> None:
    phases = phases_of(UPDATE_THAT_ROLLS_BACK, "UPDATE")
    final = {"status": "ROLLBACK_COMPLETE", "status_reason": "Stack ROLLBACK completed"}
    assert failure_line("web", final, phases) == (
        "stack web: UPDATE_FAILED: 1 created, 1 updated, 1 deleted, 1 failed (bad: asked to); "
        "then ROLLBACK_COMPLETE: 1 created, 1 updated, 1 replaced"
    )


def test_a_failed_phase_without_a_reason_says_its_counts() -> None:
    events = [
        event(None, "CREATE", "IN_PROGRESS"),
        event("a", "CREATE", "COMPLETE"),
        event("b", "CREATE", "FAILED", "no"),
        event(None, "CREATE", "FAILED"),
    ]
    final = {"status": "CREATE_FAILED", "status_reason": ""}
    assert failure_line("s", final, phases_of(events, "CREATE")) == (
        "stack s: CREATE_FAILED: 1 created, 1 failed"
    )


def test_a_replacement_is_counted_once_as_replaced() -> None:
    events = [
        event(None, "UPDATE", "IN_PROGRESS"),
        event("r", "CREATE", "IN_PROGRESS"),
        event("r", "CREATE", "COMPLETE"),
        event("r", "DELETE", "IN_PROGRESS"),
        event("r", "DELETE", "COMPLETE"),
        event(None, "UPDATE", "COMPLETE"),
    ]
    assert resources_text(phases_of(events, "UPDATE")) == (
        "Resources: 0 created, 0 updated, 1 replaced, 0 deleted, 0 failed."
    )


def test_an_action_retried_after_a_failure_counts_as_done_and_one_only_begun_not_at_all() -> None:
    events = [
        event("a", "CREATE", "FAILED"),
        event("a", "CREATE", "COMPLETE"),
        event("b", "CREATE", "IN_PROGRESS"),
        event("c", "CREATE", "COMPLETE"),
        event("c", "UPDATE", "FAILED"),
    ]
    [only] = phases_of(events, "CREATE")  # no stack event seen: the operation's own action
    assert only.action == "CREATE" and only.state is None
    assert only.counts() == {"created": 1, "updated": 0, "replaced": 0, "deleted": 0, "failed": 1}


def test_a_check_counts_checked_resources() -> None:
    events = [
        event(None, "CHECK", "IN_PROGRESS"),
        event("a", "CHECK", "COMPLETE"),
        event("b", "CHECK", "FAILED", "gone"),
        event(None, "CHECK", "FAILED", "1 checked, 1 failed (b: gone)"),
    ]
    [check] = phases_of(events, "CHECK")
    assert resources_text([check]) == "Resources: 1 checked, 1 failed."
    final = {"status": "CHECK_FAILED"}
    assert failure_line("s", final, [check]) == (
        "stack s: CHECK_FAILED: 1 checked, 1 failed (b: gone)"
    )


def test_a_cancel_without_rollback_is_one_phase_that_ended_failed() -> None:
    events = [event(None, "UPDATE", "FAILED", "Stack UPDATE cancelled by the user")]
    [cancel] = phases_of(events, "UPDATE")
    assert cancel.state == "UPDATE_FAILED"
    assert cancel.to_json() == {
        "action": "UPDATE",
        "status": "UPDATE_FAILED",
        "created": 0,
        "updated": 0,
        "replaced": 0,
        "deleted": 0,
        "failed": 0,
    }


def test_a_failure_whose_end_was_not_seen_names_the_final_status() -> None:
    phases = phases_of([event(None, "CREATE", "IN_PROGRESS")], "CREATE")
    final = {"status": "CREATE_FAILED", "status_reason": "Timed out: 1 in progress"}
    assert failure_line("s", final, phases) == "stack s: CREATE_FAILED: Timed out: 1 in progress"
