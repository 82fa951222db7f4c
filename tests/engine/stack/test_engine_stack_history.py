"""The history of a stack's operations on the stand-ins: a row written as each operation starts
and finished as it ends (completed, failed, timed out, cancelled, superseded), a watchdog
restart carried over, and stack_history's view of them."""

from __future__ import annotations

from typing import Any

import pytest
from standins import (
    RecordingDispatcher,
    StandinDatabase,
    StandinSyncPoints,
    resource,
    stepped,
    template,
)

from conv_tasks.engine import (
    ChangeRequest,
    NewStackRequest,
    StackControl,
    TenantStacks,
    run_watchdog,
    stack_history,
)
from conv_tasks.engine.read.history import one_line
from conv_tasks.errors import NotFound

TENANT = "tenant-a"


def _history(stacks: TenantStacks, ref: str = "web", **page: Any) -> list[dict[str, Any]]:
    return list(stack_history(stacks.env, TENANT, ref, **page)["operations"])


def _counts(operation: dict[str, Any]) -> tuple[int, ...]:
    counts = operation["counts"]
    return tuple(counts[k] for k in ("created", "updated", "replaced", "deleted", "failed"))


def test_a_create_then_an_update_count_what_each_did(
    stacks: TenantStacks, dispatcher: RecordingDispatcher
) -> None:
    first = {
        "same": resource("s"),
        "edited": resource("e1"),
        "swapped": resource("w1", update_replace=True),
        "dropped": resource("d"),
    }
    created = stacks.create(NewStackRequest("web", template(first), {}))
    dispatcher.drain(stacks.env)
    second = {
        "same": resource("s"),
        "edited": resource("e2"),
        "swapped": resource("w2", update_replace=True),
        "added": resource("a"),
    }
    updated = stacks.update("web", ChangeRequest(template(second), {}))
    dispatcher.drain(stacks.env)

    update, create = _history(stacks)
    assert (create["action"], create["result"], create["traversal"]) == (
        "CREATE",
        "COMPLETE",
        created.traversal,
    )
    assert _counts(create) == (4, 0, 0, 0, 0)
    assert (update["action"], update["result"], update["traversal"]) == (
        "UPDATE",
        "COMPLETE",
        updated.traversal,
    )
    assert _counts(update) == (1, 1, 1, 1, 0)
    assert update["reason"] == "Stack UPDATE completed successfully"
    assert update["failures"] == [] and update["watchdog_restarts"] == 0
    assert update["tenant"] == TENANT and update["ended_at"] is not None
    assert update["duration_secs"] is not None and update["duration_secs"] >= 0
    assert update["id"] > create["id"]


def test_a_failed_create_lists_its_failed_resources_with_their_reasons(
    stacks: TenantStacks, dispatcher: RecordingDispatcher
) -> None:
    resources = {"good": resource("g"), "bad": resource("b", fail=True)}
    stacks.create(NewStackRequest("web", template(resources), {}, disable_rollback=True))
    dispatcher.drain(stacks.env)

    [create] = _history(stacks)
    assert create["result"] == "FAILED"
    assert _counts(create) == (1, 0, 0, 0, 1)
    [failure] = create["failures"]
    assert failure["resource"] == "bad" and failure["reason"]
    assert failure["reason"] in create["reason"]


def test_a_failed_update_and_its_rollback_are_two_operations(
    stacks: TenantStacks, dispatcher: RecordingDispatcher
) -> None:
    stacks.create(NewStackRequest("web", template({"r": resource("v1")}), {}))
    dispatcher.drain(stacks.env)
    stacks.update("web", ChangeRequest(template({"r": resource("v2", fail=True)}), {}))
    dispatcher.drain(stacks.env)

    rollback, update, create = _history(stacks)
    assert [op["action"] for op in (rollback, update, create)] == ["ROLLBACK", "UPDATE", "CREATE"]
    assert [op["result"] for op in (rollback, update, create)] == ["COMPLETE", "FAILED", "COMPLETE"]
    assert [f["resource"] for f in update["failures"]] == ["r"]


def test_an_operation_taken_over_by_another_is_superseded(
    stacks: TenantStacks, dispatcher: RecordingDispatcher
) -> None:
    stacks.create(NewStackRequest("web", template({"r": stepped("v1")}), {}))
    dispatcher.drain(stacks.env)
    stacks.update("web", ChangeRequest(template({"r": stepped("v2", polls=3)}), {}))
    assert dispatcher.deliver(stacks.env).outcome == "polling"

    stacks.update("web", ChangeRequest(template({"r": stepped("v3")}), {}))
    dispatcher.drain(stacks.env)

    newest, superseded, _ = _history(stacks)
    assert (newest["result"], superseded["result"]) == ("COMPLETE", "SUPERSEDED")
    assert superseded["reason"].startswith("Superseded by the next operation")
    assert superseded["ended_at"] is not None


def test_a_cancel_or_a_timeout_fails_the_operation_with_its_reason(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
) -> None:
    stacks.create(NewStackRequest("web", template({"r": stepped("v1")}), {}))
    dispatcher.drain(stacks.env)
    stacks.update("web", ChangeRequest(template({"r": stepped("v2", polls=3)}), {}))
    dispatcher.deliver(stacks.env)
    stacks.cancel("web", rollback=False)
    [cancelled, _] = _history(stacks)
    assert (cancelled["result"], cancelled["reason"]) == (
        "FAILED",
        # The failure summary (issue 25, item 11): r's update was under way.
        "Stack UPDATE cancelled by the user: 1 in progress",
    )

    slow = NewStackRequest("slow", template({"r": stepped(polls=3)}), {}, timeout_mins=1)
    result = stacks.create(slow)
    dispatcher.deliver(stacks.env)
    db.date_back(result.stack_id, 61)
    assert run_watchdog(stacks.env).timed_out == (result.stack_id,)
    dispatcher.drain(stacks.env)
    rollback, timed_out = _history(stacks, "slow")
    assert (timed_out["result"], timed_out["reason"]) == (
        "FAILED",
        "Stack CREATE timed out after 1 minute(s): 1 in progress",
    )
    assert (rollback["action"], rollback["result"]) == ("ROLLBACK", "COMPLETE")


def test_a_watchdog_restart_goes_on_as_the_same_operation(
    stacks: TenantStacks,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
) -> None:
    resources = template({"a": resource("v1"), "b": resource("v2", after=("a",))})
    result = stacks.create(NewStackRequest("web", resources, {}))
    dispatcher.drain(stacks.env, until=lambda: dispatcher.pending[0].node == "update:b")
    dispatcher.lose()
    assert result.traversal is not None

    started = StackControl(stacks.env).restart(result.stack_id, result.traversal, "stalled")
    assert started is not None
    dispatcher.drain(stacks.env)

    [create] = _history(stacks)
    assert (create["result"], create["watchdog_restarts"]) == ("COMPLETE", 1)
    assert create["traversal"] == started.traversal != result.traversal
    # a was created by the first traversal, b by the second: one operation did both.
    assert _counts(create) == (2, 0, 0, 0, 0)


def test_a_deleted_stack_keeps_its_history_by_id_and_pages_newest_first(
    stacks: TenantStacks, dispatcher: RecordingDispatcher
) -> None:
    created = stacks.create(NewStackRequest("web", template({"r": resource()}), {}))
    dispatcher.drain(stacks.env)
    for value in ("v2", "v3"):
        stacks.update("web", ChangeRequest(template({"r": resource(value)}), {}))
        dispatcher.drain(stacks.env)
    stacks.delete("web")
    dispatcher.drain(stacks.env)

    with pytest.raises(NotFound):
        _history(stacks, "web")  # by name: only a live stack
    page = stack_history(stacks.env, TENANT, created.stack_id, limit=3)
    assert [op["action"] for op in page["operations"]] == ["DELETE", "UPDATE", "UPDATE"]
    assert _counts(page["operations"][0]) == (0, 0, 0, 1, 0)
    rest = stack_history(stacks.env, TENANT, created.stack_id, limit=3, before=page["next"])
    assert [op["action"] for op in rest["operations"]] == ["CREATE"]
    assert rest["next"] is None
    with pytest.raises(NotFound):
        stack_history(stacks.env, "another-tenant", created.stack_id)


def test_one_line_flattens_and_cuts() -> None:
    assert one_line("a\n  b\tc ", 100) == "a b c"
    assert one_line("x" * 20, 10) == "x" * 9 + "…"
    assert one_line("", 10) == ""
