"""Plans of a group's create and update: batch_create, rolling updates, failed and removed
members, and property tests of every rolling update plan."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conv_tasks.errors import InvalidInput
from conv_tasks.resources.builtin.group import (
    Batch,
    BatchCreate,
    BatchPlan,
    GroupProperties,
    Member,
    MemberDefinition,
    RollingUpdate,
    check_pause_fits,
    group_definer,
    member_definition,
    member_names,
    plan_batches,
    plan_create,
    plan_update,
    replay,
)

OLD = MemberDefinition("OS::Heat::TestResource", {"value": "old-%index%"})
NEW = MemberDefinition("OS::Heat::TestResource", {"value": "new-%index%"})


def group(count: int, definition: MemberDefinition = NEW) -> GroupProperties:
    return GroupProperties(count=count, index_var="%index%", resource_def=definition)


def new(name: str) -> Mapping[str, Any]:
    return member_definition(NEW, name, "%index%")


def old(name: str) -> Mapping[str, Any]:
    return member_definition(OLD, name, "%index%")


def members(*names: str, failed: tuple[str, ...] = ()) -> list[Member]:
    return [Member(n, old(n), failed=n in failed) for n in names]


def test_create_without_a_policy_is_one_batch_of_every_member() -> None:
    plan = plan_create(group(3), ["1"], None)
    assert plan == BatchPlan(
        (
            Batch(
                resources=(("0", new("0")), ("2", new("2")), ("3", new("3"))),
                changed=("0", "2", "3"),
                created=("0", "2", "3"),
                removed=(),
            ),
        )
    )


def test_batch_create_grows_by_max_batch_size() -> None:
    plan = plan_create(group(5), [], BatchCreate(max_batch_size=2, pause_time=3))
    assert [b.names for b in plan.batches] == [
        ("0", "1"),
        ("0", "1", "2", "3"),
        ("0", "1", "2", "3", "4"),
    ]
    assert [b.created for b in plan.batches] == [("0", "1"), ("2", "3"), ("4",)]
    assert all(d == new(n) for b in plan.batches for n, d in b.resources)
    assert plan.pause_time == 3
    assert plan.total_pause == 6


def test_batch_create_skips_removed_names() -> None:
    plan = plan_create(group(3), ["0"], BatchCreate(max_batch_size=2))
    assert [b.created for b in plan.batches] == [("1", "2"), ("3",)]


def test_batch_create_of_an_empty_group_is_one_empty_batch() -> None:
    plan = plan_create(group(0), [], BatchCreate(max_batch_size=2))
    assert plan == BatchPlan((Batch((), (), (), ()),))


def test_update_without_a_rolling_policy_is_one_batch() -> None:
    plan = plan_update(members("0", "1", "2"), group(2), [], None, definition_changed=True)
    (batch,) = plan.batches
    assert batch.resources == (("0", new("0")), ("1", new("1")))
    assert batch.changed == ("0", "1")
    assert batch.removed == ("2",)


def test_a_resize_is_one_batch_even_with_a_rolling_policy() -> None:
    current = [Member(n, new(n)) for n in ("0", "1")]
    plan = plan_update(
        current, group(4), [], RollingUpdate(max_batch_size=1), definition_changed=False
    )
    (batch,) = plan.batches
    assert batch.names == ("0", "1", "2", "3")
    assert batch.changed == ("2", "3")
    assert batch.created == ("2", "3")


def test_a_resize_by_removal_policy_replaces_the_listed_member() -> None:
    current = [Member(n, new(n)) for n in ("0", "1", "2")]
    plan = plan_update(current, group(3), ["1"], None, definition_changed=False)
    (batch,) = plan.batches
    assert batch.names == ("0", "2", "3")
    assert batch.created == ("3",)
    assert batch.removed == ("1",)


def test_rolling_update_one_at_a_time_highest_index_first() -> None:
    plan = plan_update(
        members("0", "1", "2"),
        group(3),
        [],
        RollingUpdate(max_batch_size=1, pause_time=2),
        definition_changed=True,
    )
    assert [b.changed for b in plan.batches] == [("2",), ("1",), ("0",)]
    assert [b.created for b in plan.batches] == [(), (), ()]
    assert plan.batches[0].resources == (("0", old("0")), ("1", old("1")), ("2", new("2")))
    assert plan.batches[-1].resources == (("0", new("0")), ("1", new("1")), ("2", new("2")))
    assert plan.total_pause == 4


def test_rolling_update_keeps_min_in_service_by_adding_members_first() -> None:
    plan = plan_update(
        members("0", "1"),
        group(2),
        [],
        RollingUpdate(max_batch_size=1, min_in_service=2),
        definition_changed=True,
    )
    assert [(b.names, b.changed, b.removed) for b in plan.batches] == [
        (("0", "1", "2"), ("2",), ()),
        (("0", "1", "2"), ("1",), ()),
        (("0", "1", "2"), ("0",), ()),
        (("0", "1"), (), ("2",)),
    ]


def test_rolling_update_with_scale_down_removes_the_highest_first() -> None:
    plan = plan_update(
        members("0", "1", "2", "3"),
        group(2),
        [],
        RollingUpdate(max_batch_size=2),
        definition_changed=True,
    )
    assert [(b.names, b.changed, b.removed) for b in plan.batches] == [
        (("0", "1"), ("0", "1"), ("2", "3")),
    ]


def test_rolling_update_with_scale_up_creates_before_updating() -> None:
    plan = plan_update(
        members("0", "1"),
        group(4),
        [],
        RollingUpdate(max_batch_size=2),
        definition_changed=True,
    )
    assert [(b.names, b.changed, b.created) for b in plan.batches] == [
        (("0", "1", "2", "3"), ("2", "3"), ("2", "3")),
        (("0", "1", "2", "3"), ("0", "1"), ()),
    ]


def test_rolling_update_drops_skipped_members_in_the_first_batch() -> None:
    plan = plan_update(
        members("0", "1", "2"),
        group(3),
        ["1"],
        RollingUpdate(max_batch_size=1),
        definition_changed=True,
    )
    first = plan.batches[0]
    assert first.removed == ("1",)
    assert plan.batches[-1].names == ("0", "2", "3")
    assert all(d == new(n) for n, d in plan.batches[-1].resources)


def test_a_failed_member_gets_the_new_definition_under_its_own_name() -> None:
    plan = plan_update(
        members("0", "1", "2", failed=("1",)),
        group(3),
        [],
        RollingUpdate(max_batch_size=1),
        definition_changed=True,
    )
    first = plan.batches[0]
    assert first.created == ("1",)
    assert "1" not in first.removed
    assert first.resources[1] == ("1", new("1"))
    assert plan.batches[-1].resources == tuple((n, new(n)) for n in ("0", "1", "2"))


def test_a_failed_member_beyond_the_new_size_is_removed() -> None:
    plan = plan_update(
        members("0", "1", "2", failed=("2",)),
        group(2),
        [],
        RollingUpdate(max_batch_size=5),
        definition_changed=True,
    )
    assert plan.batches[0].removed == ("2",)
    assert plan.batches[-1].names == ("0", "1")


def test_members_already_up_to_date_take_no_batch() -> None:
    current = [Member("0", old("0")), Member("1", new("1")), Member("2", new("2"))]
    plan = plan_update(current, group(3), [], RollingUpdate(), definition_changed=True)
    assert [b.changed for b in plan.batches] == [("0",)]


def test_each_member_gets_its_own_index_in_the_new_definition() -> None:
    plan = plan_update(members("0", "1"), group(2), [], RollingUpdate(), definition_changed=True)
    final = dict(plan.batches[-1].resources)
    assert final["0"]["properties"] == {"value": "new-0"}
    assert final["1"]["properties"] == {"value": "new-1"}


def test_pauses_that_fill_the_timeout_are_refused() -> None:
    plan = plan_update(
        members("0", "1", "2"),
        group(3),
        [],
        RollingUpdate(pause_time=30),
        definition_changed=True,
    )
    assert check_pause_fits(plan, 61, path="p") == 1
    with pytest.raises(InvalidInput) as exc:
        check_pause_fits(plan, 60, path="resources.grp.update_policy.rolling_update.pause_time")
    (problem,) = exc.value.problems
    assert problem.path == "resources.grp.update_policy.rolling_update.pause_time"
    assert problem.message.startswith("3 batches with 30 seconds between them pause 60 seconds")


def test_a_single_batch_never_pauses() -> None:
    plan = plan_create(group(3), [], BatchCreate(max_batch_size=5, pause_time=1000))
    assert plan.total_pause == 0
    assert check_pause_fits(plan, 10, path="p") == 10


def test_bad_numbers_are_a_bug_of_the_caller() -> None:
    with pytest.raises(ValueError):
        plan_batches((), count=1, skiplist=(), definer=new, max_batch_size=0, min_in_service=0)


@st.composite
def rolling_updates(draw: st.DrawFn) -> tuple[list[Member], int, list[str], int, int]:
    current = draw(st.integers(0, 10))
    skiplist = sorted(draw(st.sets(st.integers(0, 14).map(str), max_size=4)))
    names = member_names(current, skiplist)
    failed = draw(st.sets(st.sampled_from(names), max_size=2)) if names else set()
    # Some members may have the new definition already (an update that stopped half way).
    fresh = draw(st.sets(st.sampled_from(names), max_size=3)) if names else set()
    start = [Member(n, new(n) if n in fresh else old(n), failed=n in failed) for n in names]
    # Some members removed by the policies only now are still there.
    start.extend(Member(n, old(n)) for n in skiplist if draw(st.booleans()))
    count = draw(st.integers(0, 10))
    return start, count, skiplist, draw(st.integers(1, 5)), draw(st.integers(0, 12))


@settings(max_examples=300, deadline=None)
@given(rolling_updates())
def test_every_rolling_update_plan(case: tuple[list[Member], int, list[str], int, int]) -> None:
    start, count, skiplist, batch_size, least = case
    plan = plan_update(
        start,
        group(count),
        skiplist,
        RollingUpdate(max_batch_size=batch_size, min_in_service=least),
        definition_changed=True,
    )
    wanted = member_names(count, skiplist)
    present = {m.name: m.definition for m in start}
    failed = {m.name for m in start if m.failed}
    changed_once: list[str] = []
    for batch in plan.batches:
        # Batch sizes are bounded, and every batch does something.
        assert len(batch.changed) <= batch_size
        assert batch.changed or batch.removed
        assert set(batch.created) <= set(batch.changed)
        # The template follows from the one before it.
        assert set(batch.names) == (set(present) - set(batch.removed)) | set(batch.created)
        untouched = [n for n in batch.names if n not in batch.changed]
        assert all(dict(batch.resources)[n] == present[n] for n in untouched)
        assert all(dict(batch.resources)[n] == new(n) for n in batch.changed)
        # Never fewer members untouched than min_in_service allows (Heat caps it at the
        # target size and at the size before the batch).
        # Failed members are not in service.
        before = [n for n in present if n not in skiplist and n not in failed]
        in_service = [n for n in before if n in untouched]
        assert len(in_service) >= min(least, count, len(before))
        failed = set()
        changed_once.extend(batch.changed)
        # The summary a plugin keeps rebuilds the batch from the template before it.
        summary = json.loads(json.dumps(batch.summary()))
        assert replay(present, summary, group_definer(group(count))) == batch.resources
        present = dict(batch.resources)
    # The group ends as count members avoiding the skip list, all with the new definition
    # (with no batch at all when it is that already).
    assert present == {n: new(n) for n in wanted}
    # No member is given the new definition twice.
    assert len(changed_once) == len(set(changed_once))
    # Every member of the result that was not up to date and in service was brought up
    # to date, once.
    ready = {m.name for m in start if not m.failed and m.definition == new(m.name)}
    assert set(wanted) - ready <= set(changed_once)


@settings(max_examples=200, deadline=None)
@given(
    current=st.integers(0, 12),
    count=st.integers(0, 12),
    batch_size=st.integers(1, 6),
    least=st.integers(0, 14),
)
def test_in_service_never_below_min_in_service(
    current: int, count: int, batch_size: int, least: int
) -> None:
    plan = plan_update(
        members(*member_names(current, ())),
        group(count),
        [],
        RollingUpdate(max_batch_size=batch_size, min_in_service=least),
        definition_changed=True,
    )
    present = set(member_names(current, ()))
    for batch in plan.batches:
        in_service = present - set(batch.changed) - set(batch.removed)
        assert len(in_service) >= min(least, count, len(present))
        assert len(batch.changed) <= batch_size
        present = set(batch.names)


def test_replay_rebuilds_a_batch_from_its_summary() -> None:
    current = {"0": old("0"), "1": old("1"), "2": old("2")}
    summary = {"changed": ["2", "3"], "removed": ["1"]}
    assert replay(current, summary, new) == (("0", old("0")), ("2", new("2")), ("3", new("3")))
    assert current == {"0": old("0"), "1": old("1"), "2": old("2")}


def test_a_large_group_one_member_at_a_time() -> None:
    # 300 members one at a time keeping all but one in service: 300 batches.
    start = members(*member_names(300, ()))
    plan = plan_update(
        start,
        group(300),
        [],
        RollingUpdate(max_batch_size=1, min_in_service=299),
        definition_changed=True,
    )
    assert len(plan.batches) == 300
    assert [b.changed for b in plan.batches[:2]] == [("299",), ("298",)]
    assert plan.batches[-1].changed == ("0",)
