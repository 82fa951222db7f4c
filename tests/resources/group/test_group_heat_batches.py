"""Which members change in each batch: Heat's scenarios of a group whose member "0" was
removed by a policy, with members "1".."N" to update (target, current, max_batch_size,
min_in_service; each batch as capacity:changed members)."""

from __future__ import annotations

import pytest

from conv_tasks.resources.builtin.group import Member, plan_batches
from conv_tasks.resources.builtin.group.capacity import Step, steps

OLD = {"type": "T", "properties": {"foo": "baz"}}
NEW = {"type": "T", "properties": {"foo": "bar"}}

SCENARIOS = [
    (4, 4, 1, 0, "4:4 4:3 4:2 4:1"),
    (4, 4, 1, 4, "5:5 5:4 5:3 5:2 5:1 4:"),
    (4, 4, 1, 5, "5:5 5:4 5:3 5:2 5:1 4:"),
    (4, 4, 2, 0, "4:4,3 4:2,1"),
    (4, 4, 2, 4, "6:6,5 6:4,3 6:2,1 4:"),
    (5, 5, 2, 0, "5:5,4 5:3,2 5:1"),
    (5, 5, 2, 4, "6:6,5 6:4,3 6:2,1 5:"),
    (3, 3, 2, 0, "3:3,2 3:1"),
    (3, 3, 2, 4, "5:5,4 5:3,2 4:1 3:"),
    (4, 4, 4, 0, "4:4,3,2,1"),
    (4, 4, 5, 0, "4:4,3,2,1"),
    (4, 4, 4, 1, "5:5,4,3,2 4:1"),
    (4, 4, 6, 1, "5:5,4,3,2 4:1"),
    (4, 4, 4, 2, "6:6,5,4,3 4:2,1"),
    (4, 4, 4, 4, "8:8,7,6,5 8:4,3,2,1 4:"),
    (4, 4, 5, 6, "8:8,7,6,5 8:4,3,2,1 4:"),
    (4, 7, 1, 0, "4:4 4:3 4:2 4:1"),
    (4, 7, 1, 4, "5:4 5:3 5:2 5:1 4:"),
    (4, 7, 1, 5, "5:4 5:3 5:2 5:1 4:"),
    (4, 7, 2, 0, "4:4,3 4:2,1"),
    (4, 7, 2, 4, "6:4,3 6:2,1 4:"),
    (5, 7, 2, 0, "5:5,4 5:3,2 5:1"),
    (5, 7, 2, 4, "6:5,4 6:3,2 5:1"),
    (4, 7, 4, 4, "8:8,4,3,2 5:1 4:"),
    (4, 7, 5, 6, "8:8,4,3,2 5:1 4:"),
    (6, 4, 1, 0, "5:5 6:6 6:4 6:3 6:2 6:1"),
    (6, 4, 1, 4, "5:5 6:6 6:4 6:3 6:2 6:1"),
    (6, 4, 1, 5, "5:5 6:6 6:4 6:3 6:2 6:1"),
    (6, 4, 2, 0, "6:5,6 6:4,3 6:2,1"),
    (6, 4, 2, 4, "6:5,6 6:4,3 6:2,1"),
    (6, 5, 2, 0, "6:6,5 6:4,3 6:2,1"),
    (6, 5, 2, 4, "6:6,5 6:4,3 6:2,1"),
    (6, 3, 2, 0, "5:4,5 6:6,3 6:2,1"),
    (6, 3, 2, 4, "5:4,5 6:6,3 6:2,1"),
    (6, 4, 4, 0, "6:5,6,4,3 6:2,1"),
    (6, 4, 5, 0, "6:5,6,4,3,2 6:1"),
    (6, 4, 4, 1, "6:5,6,4,3 6:2,1"),
    (6, 4, 6, 1, "7:5,6,7,4,3,2 6:1"),
    (6, 4, 4, 2, "6:5,6,4,3 6:2,1"),
    (6, 4, 4, 4, "8:8,7,6,5 8:4,3,2,1 6:"),
    (6, 4, 5, 6, "9:9,8,7,6,5 10:10,4,3,2 7:1 6:"),
]


def parsed(batches: str) -> list[tuple[int, list[str]]]:
    found = []
    for batch in batches.split():
        capacity, names = batch.split(":")
        found.append((int(capacity), [n for n in names.split(",") if n]))
    return found


@pytest.mark.parametrize(("target", "current", "size", "least", "batches"), SCENARIOS)
def test_steps(target: int, current: int, size: int, least: int, batches: str) -> None:
    expected = [Step(capacity, len(names)) for capacity, names in parsed(batches)]
    assert list(steps(target, current, size, least)) == expected


@pytest.mark.parametrize(("target", "current", "size", "least", "batches"), SCENARIOS)
def test_members_changed_in_each_batch(
    target: int, current: int, size: int, least: int, batches: str
) -> None:
    members = [Member(str(i), OLD) for i in range(current + 1)]
    plan = plan_batches(
        members,
        count=target,
        skiplist=["0"],
        definer=lambda name: NEW,
        max_batch_size=size,
        min_in_service=least,
    )
    expected = parsed(batches)
    assert len(plan) == len(expected)
    for batch, (capacity, changed) in zip(plan, expected, strict=True):
        # After "0" the members are "1".."capacity": the new ones take the next free names.
        assert batch.names == tuple(str(i) for i in range(1, capacity + 1))
        assert set(batch.changed) == set(changed)
        assert all(dict(d) == NEW for n, d in batch.resources if n in changed)
    assert plan[0].removed[:1] == ("0",)
    assert all(dict(d) == NEW for _, d in plan[-1].resources)
