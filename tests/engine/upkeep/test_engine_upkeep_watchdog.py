"""The watchdog: `judge` on every branch, and `run_watchdog` restarting a stalled traversal
and timing one out on the stand-ins.

The engine dates operations and asks the time by the wall clock, so a test makes an
operation old by dating its row (and its heartbeat) back, as a test on PostgreSQL does
with an UPDATE.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from standins import (
    RecordingDispatcher,
    StandinDatabase,
    StandinSandbox,
    StandinSyncPoints,
    resource,
    stepped,
    template,
)

from conv_tasks.db import RunningOperation
from conv_tasks.engine import (
    NewStackRequest,
    OperationResult,
    TenantStacks,
    run_watchdog,
)
from conv_tasks.engine.upkeep import Judgement, Watch, judge

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
STALL = 180.0


def _op(**changes: object) -> RunningOperation:
    values: dict[str, object] = {
        "stack_id": "s",
        "traversal": "t",
        "updated_at": NOW - timedelta(seconds=10),
        "action": "CREATE",
        "timeout_mins": 10,
        "started_at": NOW - timedelta(minutes=5),
        "disable_rollback": False,
    }
    return RunningOperation(**{**values, **changes})  # type: ignore[arg-type]


def _judge(op: RunningOperation, heartbeat: float | None = None) -> Judgement:
    return judge(op, now=NOW, clock=NOW.timestamp(), heartbeat=heartbeat, stall=STALL)


def test_an_operation_without_a_traversal_is_left_alone() -> None:
    long_ago = NOW - timedelta(days=1)
    assert _judge(_op(traversal=None, updated_at=long_ago, started_at=long_ago)) == Judgement(
        Watch.LEAVE
    )


@pytest.mark.parametrize(
    ("action", "disable_rollback", "roll_back"),
    [
        ("CREATE", False, True),
        ("UPDATE", False, True),
        ("CREATE", True, False),
        ("DELETE", False, False),
        ("ROLLBACK", False, False),
    ],
)
def test_an_operation_past_its_timeout_is_timed_out(
    action: str, disable_rollback: bool, roll_back: bool
) -> None:
    op = _op(
        action=action,
        disable_rollback=disable_rollback,
        started_at=NOW - timedelta(minutes=10, seconds=1),
    )
    assert _judge(op, heartbeat=NOW.timestamp()) == Judgement(
        Watch.TIME_OUT, f"Stack {action} timed out after 10 minute(s)", roll_back
    )


def test_an_operation_within_its_timeout_or_without_one_is_not_timed_out() -> None:
    at_the_limit = _op(started_at=NOW - timedelta(minutes=10))
    assert _judge(at_the_limit).watch == Watch.LEAVE
    no_timeout = _op(timeout_mins=None, started_at=NOW - timedelta(days=3))
    assert _judge(no_timeout).watch == Watch.LEAVE


def test_a_traversal_without_progress_for_too_long_is_restarted() -> None:
    idle = _op(updated_at=NOW - timedelta(seconds=STALL + 20))
    verdict = _judge(idle, heartbeat=(NOW - timedelta(seconds=STALL + 5)).timestamp())
    assert verdict == Judgement(
        Watch.RESTART,
        "Traversal made no progress for 185s; resumed from the database by the watchdog",
    )
    assert _judge(_op(updated_at=NOW - timedelta(seconds=STALL))).watch == Watch.RESTART


@pytest.mark.parametrize(
    ("updated_ago", "heartbeat_ago"),
    [(STALL + 60, 1.0), (1.0, STALL + 60), (1.0, None), (STALL - 1, None)],
)
def test_a_traversal_that_moves_is_left_alone(
    updated_ago: float, heartbeat_ago: float | None
) -> None:
    op = _op(updated_at=NOW - timedelta(seconds=updated_ago))
    beat = None if heartbeat_ago is None else NOW.timestamp() - heartbeat_ago
    assert _judge(op, heartbeat=beat) == Judgement(Watch.LEAVE)


# ---------------------------------------------------------------- run_watchdog


def _stall(db: StandinDatabase, syncpoints: StandinSyncPoints, result: OperationResult) -> None:
    """Make the operation's last progress older than the watchdog allows."""
    seconds = db.stack(result.stack_id).updated_at.timestamp()
    db.date_back(result.stack_id, STALL + 30)
    syncpoints.date_back(result.traversal or "", STALL + 30)
    assert db.stack(result.stack_id).updated_at.timestamp() == seconds - STALL - 30


def test_run_watchdog_restarts_a_stalled_traversal_from_the_database(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
    sandbox: StandinSandbox,
) -> None:
    resources = template({"a": resource("v1"), "b": resource("v2", after=("a",))})
    result = stacks.create(NewStackRequest("web", resources, {}))
    dispatcher.drain(stacks.env, until=lambda: dispatcher.pending[0].node == "update:b")
    dispatcher.lose()  # b's message died with its worker: nothing moves any more
    _stall(db, syncpoints, result)

    report = run_watchdog(stacks.env)

    assert (report.checked, report.restarted, report.timed_out) == (1, (result.stack_id,), ())
    stack = db.stack(result.stack_id)
    assert stack.state == "CREATE_IN_PROGRESS" and stack.current_traversal != result.traversal
    assert result.traversal not in syncpoints.traversals()
    # 210 s and what the test took so far, by the wall clock.
    assert re.fullmatch(
        r"Traversal made no progress for 21\ds; resumed from the database by the watchdog",
        db.events(result.stack_id)[-1].reason,
    )
    deliveries = dispatcher.drain(stacks.env)
    assert [(d.sent.node, d.outcome) for d in deliveries] == [
        ("update:a", "noop"),  # converged the first time: nothing done twice
        ("update:b", "complete"),
    ]
    assert db.stack(result.stack_id).state == "CREATE_COMPLETE"
    assert sorted(o["create_calls"] for o in db.sandbox_objects()) == [1, 1]


def test_run_watchdog_leaves_a_traversal_that_moves(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher
) -> None:
    result = stacks.create(NewStackRequest("web", template({"r": stepped(polls=3)}), {}))
    dispatcher.deliver(stacks.env)
    before = db.snapshot()

    report = run_watchdog(stacks.env)

    assert (report.checked, report.restarted, report.timed_out) == (1, (), ())
    assert db.snapshot() == before
    assert db.stack(result.stack_id).current_traversal == result.traversal


@pytest.mark.parametrize("disable_rollback", [False, True])
def test_run_watchdog_times_out_an_operation_past_its_timeout(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    syncpoints: StandinSyncPoints,
    disable_rollback: bool,
) -> None:
    request = NewStackRequest(
        "web",
        template({"r": stepped(polls=3)}),
        {},
        timeout_mins=1,
        disable_rollback=disable_rollback,
    )
    result = stacks.create(request)
    dispatcher.deliver(stacks.env)  # r's create is under way
    db.date_back(result.stack_id, 61)

    report = run_watchdog(stacks.env)

    assert (report.restarted, report.timed_out) == ((), (result.stack_id,))
    assert result.traversal not in syncpoints.traversals()
    events = [(e.state, e.reason) for e in db.events(result.stack_id) if e.resource_name is None]
    # The reason says what the operation had done when it timed out: r's create was under way.
    timed_out = "Stack CREATE timed out after 1 minute(s): 1 in progress"
    assert ("CREATE_FAILED", timed_out) in events
    stack = db.stack(result.stack_id)
    if disable_rollback:
        assert (stack.state, stack.status_reason) == ("CREATE_FAILED", timed_out)
    else:
        assert stack.state == "ROLLBACK_IN_PROGRESS"
        assert stack.status_reason == f"Rolling back: {timed_out}"
    dispatcher.drain(stacks.env)
    stack = db.stack(result.stack_id)
    if disable_rollback:
        assert stack.state == "CREATE_FAILED"
        [r] = db.resources(result.stack_id)
        assert r.state == "CREATE_COMPLETE"  # the action under way was let finish
    else:
        assert stack.state == "ROLLBACK_COMPLETE"
        assert db.resources(result.stack_id) == []
        assert [o["deleted"] for o in db.sandbox_objects()] == [True]
