"""Deadlines by the database's clock (issue 23, clock skew): a worker host whose clock runs
ahead neither times an action or a stack out early, nor is an overdue one let run on.

The stand-in clock is the database's; a worker host's clock is the wall clock moved by
`ahead` in the node modules (which is where a skewed host would read it)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from standins import RecordingDispatcher, StandinClock, StandinDatabase, stepped, template

from conv_tasks.engine import NewStackRequest, Outcome, TenantStacks

HOST_AHEAD = timedelta(hours=2)
NODE_MODULES = (
    "conv_tasks.engine.node.converge",
    "conv_tasks.engine.node.steps",
    "conv_tasks.engine.node.cleanup",
    "conv_tasks.engine.node.delivery",
)


class _AheadDatetime(datetime):
    @classmethod
    def now(cls, tz: object = None) -> _AheadDatetime:  # type: ignore[override]
        real = datetime.now(UTC) + HOST_AHEAD
        return cls.fromtimestamp(real.timestamp(), UTC)


@pytest.fixture
def host_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """This worker host's clock runs two hours ahead of the database's."""
    for module in NODE_MODULES:
        monkeypatch.setattr(f"{module}.datetime", _AheadDatetime, raising=False)
    skewed = SimpleNamespace(
        time=lambda: time.time() + HOST_AHEAD.total_seconds(), monotonic=time.monotonic
    )
    monkeypatch.setattr("conv_tasks.engine.node.actions.time", skewed)


def _create(stacks: TenantStacks, polls: int, timeout_mins: int) -> str:
    request = NewStackRequest(
        "web", template({"r": stepped("v1", polls=polls)}), {}, disable_rollback=True,
        timeout_mins=timeout_mins,
    )  # fmt: skip
    return stacks.create(request).stack_id


def test_a_host_ahead_does_not_time_a_stack_out_early(
    stacks: TenantStacks, db: StandinDatabase, dispatcher: RecordingDispatcher, host_ahead: None
) -> None:
    stack_id = _create(stacks, polls=2, timeout_mins=60)
    outcomes = [d.outcome for d in dispatcher.drain(stacks.env)]
    assert outcomes == [Outcome.POLLING, Outcome.POLLING, Outcome.COMPLETE]
    assert db.stack(stack_id).state == "CREATE_COMPLETE"


def test_the_database_clock_still_times_an_action_out(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
    clock: StandinClock,
    host_ahead: None,
) -> None:
    stack_id = _create(stacks, polls=2, timeout_mins=1)
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    clock.advance(61)  # past the stack's minute, by the database's clock
    dispatcher.drain(stacks.env)
    stack = db.stack(stack_id)
    assert stack.state == "CREATE_FAILED"
    assert "timed out" in stack.status_reason
