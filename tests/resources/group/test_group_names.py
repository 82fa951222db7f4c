"""Member names of a group: scale up and down, removal policies by name, index and
reference, names never reused, and removal_policies_mode."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conv_tasks.resources.builtin.group import (
    Resize,
    member_names,
    next_skiplist,
    removed_names,
    resize,
)
from conv_tasks.resources.builtin.group.names import index_order


def test_names_are_the_lowest_indices() -> None:
    assert member_names(0, ()) == ()
    assert member_names(3, ()) == ("0", "1", "2")


def test_skipped_names_are_never_used() -> None:
    assert member_names(3, ["1"]) == ("0", "2", "3")
    assert member_names(2, ["0", "1", "5"]) == ("2", "3")
    # A skipped name that is no index takes no index away.
    assert member_names(2, ["web"]) == ("0", "1")


def test_scale_up_keeps_members_and_adds_the_next_indices() -> None:
    assert resize(["0", "1"], 4, ()) == Resize(
        names=("0", "1", "2", "3"), kept=("0", "1"), added=("2", "3"), removed=()
    )


def test_scale_down_without_policies_removes_the_highest_indices() -> None:
    assert resize(["0", "1", "2", "3", "10"], 2, ()) == Resize(
        names=("0", "1"), kept=("0", "1"), added=(), removed=("2", "3", "10")
    )


def test_scale_down_with_a_policy_removes_the_listed_member() -> None:
    skiplist = next_skiplist((), ["1"], "append", members=["0", "1", "2"], refs={}, created=True)
    assert resize(["0", "1", "2"], 2, skiplist) == Resize(
        names=("0", "2"), kept=("0", "2"), added=(), removed=("1",)
    )


def test_a_policy_without_scale_down_replaces_the_member_under_a_new_name() -> None:
    skiplist = next_skiplist((), ["0"], "append", members=["0", "1"], refs={}, created=True)
    assert resize(["0", "1"], 2, skiplist) == Resize(
        names=("1", "2"), kept=("1",), added=("2",), removed=("0",)
    )


def test_removed_names_are_never_reused_when_scaling_up_later() -> None:
    skiplist = next_skiplist((), ["1"], "append", members=["0", "1", "2"], refs={}, created=True)
    # The next update lists nothing new: append keeps "1" skipped.
    skiplist = next_skiplist(skiplist, [], "append", members=["0", "2"], refs={}, created=True)
    assert resize(["0", "2"], 4, skiplist).added == ("3", "4")


def test_entries_may_be_indices_or_references() -> None:
    refs = {"0": "id-a", "1": "id-b", "2": "id-c"}
    members = ["0", "1", "2"]
    assert removed_names([2], skiplist=(), members=members, refs=refs, created=True) == ("2",)
    assert removed_names(["id-b"], skiplist=(), members=members, refs=refs, created=True) == ("1",)


def test_entries_matching_nothing_name_nothing() -> None:
    refs = {"0": "id-a"}
    found = removed_names(["id-gone", 7, "9"], skiplist=(), members=["0"], refs=refs, created=True)
    assert found == ()


def test_entries_already_skipped_stay_names() -> None:
    found = removed_names(["4"], skiplist=["4"], members=["0"], refs={}, created=True)
    assert found == ("4",)


def test_before_the_group_exists_every_entry_is_a_name() -> None:
    found = removed_names(["0", 3, "id-x"], skiplist=(), members=(), refs={}, created=False)
    assert found == ("0", "3", "id-x")
    assert member_names(3, found) == ("1", "2", "4")


def test_duplicates_count_once() -> None:
    refs = {"1": "id-b"}
    found = removed_names(["1", 1, "id-b"], skiplist=(), members=["1"], refs=refs, created=True)
    assert found == ("1",)


def test_append_mode_keeps_what_was_removed_before() -> None:
    after = next_skiplist(["1"], ["3"], "append", members=["0", "2", "3"], refs={}, created=True)
    assert after == ("1", "3")


def test_update_mode_replaces_the_skip_list_and_frees_names() -> None:
    after = next_skiplist(["1"], ["3"], "update", members=["0", "2", "3"], refs={}, created=True)
    assert after == ("3",)
    # An empty policy list in update mode frees every name again.
    assert next_skiplist(["1"], [], "update", members=["0"], refs={}, created=True) == ()
    assert member_names(3, ()) == ("0", "1", "2")


def test_update_mode_still_recognises_names_skipped_before() -> None:
    # "1" is no member any more, but it was skipped: it is taken as a name, not a reference.
    after = next_skiplist(["1"], ["1"], "update", members=["0", "2"], refs={}, created=True)
    assert after == ("1",)


def test_unknown_mode_is_a_bug() -> None:
    with pytest.raises(ValueError, match="removal_policies_mode"):
        next_skiplist((), [], "merge", members=(), refs={}, created=True)


def test_index_order_sorts_numerically_then_other_names() -> None:
    assert sorted(["10", "b", "2", "a", "0"], key=index_order) == ["0", "2", "10", "a", "b"]


@given(
    count=st.integers(0, 30),
    skiplist=st.sets(st.integers(0, 40).map(str), max_size=15),
    existing=st.sets(st.integers(0, 40).map(str), max_size=15),
)
def test_resize_properties(count: int, skiplist: set[str], existing: set[str]) -> None:
    change = resize(existing, count, skiplist)
    assert len(change.names) == count
    assert not set(change.names) & skiplist
    assert set(change.kept) | set(change.added) == set(change.names)
    assert set(change.kept) | set(change.removed) == existing
    assert not set(change.added) & existing
    # The lowest free indices, in order.
    free = [str(i) for i in range(count + len(skiplist)) if str(i) not in skiplist]
    assert list(change.names) == free[:count]
