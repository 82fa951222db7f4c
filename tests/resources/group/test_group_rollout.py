"""Driving a child stack through a plan: apply, wait out the pause, done; kept as JSON
between polls and rebuilt from it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from conv_tasks.resources.builtin.group import (
    BatchCreate,
    GroupProperties,
    MemberDefinition,
    group_definer,
    plan_create,
    replay,
)
from conv_tasks.resources.builtin.group.rollout import Move, NextMove, Rollout

GROUP = GroupProperties(3, "%index%", MemberDefinition("OS::Heat::None", {"n": "%index%"}))


def roundtrip(rollout: Rollout) -> Rollout:
    return Rollout.from_data(json.loads(json.dumps(rollout.to_data())))


def test_a_plan_is_applied_batch_by_batch_with_pauses() -> None:
    plan = plan_create(GROUP, [], BatchCreate(max_batch_size=2, pause_time=10))
    rollout = roundtrip(Rollout.of(plan))
    child: dict[str, Mapping[str, Any]] = {}
    assert rollout.next_move(now=100) == NextMove(Move.APPLY, batch=0)
    child = dict(replay(child, rollout.batches[0], group_definer(GROUP)))
    rollout = roundtrip(rollout.applied(0))
    assert sorted(child) == ["0", "1"]
    # The child runs; then it is complete at 103.
    rollout = roundtrip(rollout.finished(now=103))
    assert rollout.next_move(now=104) == NextMove(Move.WAIT, wait=9)
    # A later poll of the same completion does not restart the pause.
    rollout = rollout.finished(now=110)
    assert rollout.next_move(now=113) == NextMove(Move.APPLY, batch=1)
    child = dict(replay(child, rollout.batches[1], group_definer(GROUP)))
    assert sorted(child) == ["0", "1", "2"]
    assert child == dict(plan.batches[-1].resources)
    rollout = rollout.applied(1).applied(1)
    rollout = rollout.finished(now=120)
    assert rollout.next_move(now=120) == NextMove(Move.DONE)


def test_a_single_batch_never_waits() -> None:
    rollout = Rollout.of(plan_create(GROUP, [], None))
    assert rollout.next_move(0).move == Move.APPLY
    rollout = rollout.applied(0).finished(5)
    assert rollout.next_move(5) == NextMove(Move.DONE)


def test_an_empty_plan_is_done_at_once() -> None:
    assert Rollout(()).next_move(0) == NextMove(Move.DONE)


def test_out_of_order_and_unrecorded_batches_are_bugs() -> None:
    rollout = Rollout.of(plan_create(GROUP, [], BatchCreate(max_batch_size=1)))
    with pytest.raises(ValueError, match="out of order"):
        rollout.applied(1)
    with pytest.raises(ValueError, match="finished"):
        rollout.applied(0).next_move(1)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"batches": "x", "pause_time": 0, "started": 0, "finished_at": None},
        {
            "batches": [{"changed": [1], "removed": []}],
            "pause_time": 0,
            "started": 0,
            "finished_at": None,
        },
        {"batches": [], "pause_time": 0, "started": 1, "finished_at": None},
        {"batches": [], "pause_time": -1, "started": 0, "finished_at": None},
    ],
)
def test_data_that_is_no_rollout_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="not a group rollout"):
        Rollout.from_data(data)
