"""Event reads against the real PostgreSQL: by id, after a cursor, only the latest n (of one
stack, or of several stacks together), and the latest n after a cursor."""

from __future__ import annotations

import uuid

import pytest

from conv_tasks.db import EventRecord, NewStack
from conv_tasks.db.events import Events
from conv_tasks.db.session import session_scope
from conv_tasks.db.stacks import Stacks


def _stack(url: str) -> str:
    stack_id = str(uuid.uuid4())
    with session_scope(url) as session:
        Stacks(session).add(
            NewStack(
                stack_id, f"s-{stack_id[:8]}", "t", "CREATE", "IN_PROGRESS", True, None, None, ()
            )
        )
    return stack_id


def _events(url: str, stack_ids: list[str]) -> list[int]:
    """One event for each stack named, in that order (a stack may be named many times)."""
    with session_scope(url) as session:
        return Events(session).add(
            EventRecord(stack_id, "CREATE", "IN_PROGRESS", f"e{n}", resource_name=f"r{n}")
            for n, stack_id in enumerate(stack_ids)
        )


def _ids(url: str, stack_id: str, *, after_id: int = 0, latest: int = 0) -> list[int]:
    with session_scope(url) as session:
        found = Events(session).list(stack_id, after_id=after_id, latest=latest)
    return [e.id for e in found]


def _ids_of(url: str, stack_ids: list[str], *, after_id: int = 0, latest: int = 0) -> list[int]:
    with session_scope(url) as session:
        found = Events(session).of_stacks(stack_ids, after_id=after_id, latest=latest)
    return [e.id for e in found]


def test_latest_of_one_stack_are_its_newest_in_id_order(database_url: str) -> None:
    mine, other = _stack(database_url), _stack(database_url)
    ids = _events(database_url, [mine, other, mine, mine, other, mine, other])
    own = [ids[0], ids[2], ids[3], ids[5]]
    assert _ids(database_url, mine) == own
    assert _ids(database_url, mine, latest=2) == own[-2:]
    assert _ids(database_url, mine, latest=1) == own[-1:]
    # More than there are: all of them, still oldest first.
    assert _ids(database_url, mine, latest=50) == own
    assert _ids(database_url, mine, latest=0) == own


def test_latest_combines_with_after_id(database_url: str) -> None:
    mine = _stack(database_url)
    ids = _events(database_url, [mine] * 6)
    assert _ids(database_url, mine, after_id=ids[1], latest=2) == ids[4:]
    # Fewer after the cursor than asked for: those after it, none before it.
    assert _ids(database_url, mine, after_id=ids[3], latest=5) == ids[4:]
    assert _ids(database_url, mine, after_id=ids[-1], latest=5) == []


def test_latest_with_a_resource_name_counts_that_resource_only(database_url: str) -> None:
    mine = _stack(database_url)
    with session_scope(database_url) as session:
        ids = Events(session).add(
            EventRecord(mine, "CREATE", status, "", resource_name=name)
            for name, status in [("a", "IN_PROGRESS"), ("b", "IN_PROGRESS"), ("a", "COMPLETE")]
        )
        found = Events(session).list(mine, resource_name="a", latest=1)
    assert [(e.id, e.status) for e in found] == [(ids[2], "COMPLETE")]


def test_latest_of_several_stacks_is_over_them_together(database_url: str) -> None:
    parent, child, grandchild, stranger = (_stack(database_url) for _ in range(4))
    order = [parent, child, stranger, child, grandchild, parent, stranger, child, grandchild]
    ids = _events(database_url, order)
    family = [i for i, owner in zip(ids, order, strict=True) if owner != stranger]
    stacks = [parent, child, grandchild]
    assert _ids_of(database_url, stacks) == family
    # The newest 3 of the three together, whichever stacks wrote them (not 3 per stack).
    assert _ids_of(database_url, stacks, latest=3) == family[-3:]
    assert _ids_of(database_url, stacks, latest=100) == family
    # After a cursor: the newest 2 of those after it.
    assert _ids_of(database_url, stacks, after_id=family[1], latest=2) == family[-2:]
    assert _ids_of(database_url, stacks, after_id=family[-2], latest=4) == family[-1:]
    # The rows are the events themselves, each with its own stack.
    with session_scope(database_url) as session:
        rows = Events(session).of_stacks(stacks, latest=2)
    assert [(r.stack_id, r.reason) for r in rows] == [(child, "e7"), (grandchild, "e8")]


@pytest.mark.parametrize("latest", [0, 2])
def test_one_stack_or_none_through_of_stacks(database_url: str, latest: int) -> None:
    mine = _stack(database_url)
    ids = _events(database_url, [mine] * 3)
    assert _ids_of(database_url, [mine], latest=latest) == (ids[-latest:] if latest else ids)
    assert _ids_of(database_url, [], latest=latest) == []
