"""Stack operation rows against the real PostgreSQL: the counts read from an operation's own
events as it ends, superseding, the watchdog's restarts, the failures kept, paging."""

from __future__ import annotations

import uuid

import pytest

from conv_tasks.db import EventRecord, NewStack, OperationRow, replacement_reason
from conv_tasks.db.events import Events
from conv_tasks.db.operations import FAILURES_KEPT, Operations
from conv_tasks.db.session import session_scope
from conv_tasks.db.stacks import Stacks
from conv_tasks.errors import InvalidInput
from conv_tasks.statuses import OperationOutcome

Happened = tuple[str, str, str, str]  # resource, action, status, reason


def _stack(url: str) -> str:
    stack_id = str(uuid.uuid4())
    with session_scope(url) as session:
        Stacks(session).add(
            NewStack(
                stack_id, f"s-{stack_id[:8]}", "t", "UPDATE", "IN_PROGRESS", True, None, None, ()
            )
        )
    return stack_id


def _start(url: str, stack_id: str, traversal: str, action: str = "UPDATE") -> int:
    """An operation as swap_in starts one: its first event, then its row."""
    with session_scope(url) as session:
        [first] = Events(session).add(
            [EventRecord(stack_id, action, "IN_PROGRESS", "started", traversal=traversal)]
        )
        return Operations(session).start(
            stack_id=stack_id,
            tenant="t",
            traversal=traversal,
            action=action,
            first_event_id=first,
            superseded_reason="Superseded by the next operation",
        )


def _happen(url: str, stack_id: str, traversal: str, events: list[Happened]) -> None:
    with session_scope(url) as session:
        Events(session).add(
            EventRecord(stack_id, action, status, reason, resource_name=name, traversal=traversal)
            for name, action, status, reason in events
        )


def _finish(url: str, stack_id: str, traversal: str, result: OperationOutcome) -> bool:
    with session_scope(url) as session:
        return Operations(session).finish(
            stack_id=stack_id, traversal=traversal, result=result, reason="it ended"
        )


def _history(
    url: str, stack_id: str, limit: int = 10, before: int | None = None
) -> list[OperationRow]:
    with session_scope(url) as session:
        return Operations(session).of_stack(stack_id, limit=limit, before=before)


def _counts(row: object) -> tuple[int, ...]:
    return tuple(
        getattr(row, f"resources_{kind}")
        for kind in ("created", "updated", "replaced", "deleted", "failed")
    )


def test_each_resource_counts_once_by_what_its_events_say(database_url: str) -> None:
    stack_id, traversal, older = _stack(database_url), str(uuid.uuid4()), str(uuid.uuid4())
    _start(database_url, stack_id, traversal)
    _happen(
        database_url,
        stack_id,
        traversal,
        [
            ("new", "CREATE", "IN_PROGRESS", ""),
            ("new", "CREATE", "COMPLETE", ""),
            ("changed", "UPDATE", "IN_PROGRESS", ""),
            ("changed", "UPDATE", "COMPLETE", ""),
            ("swapped", "CREATE", "IN_PROGRESS", replacement_reason(0)),
            ("swapped", "CREATE", "COMPLETE", ""),
            ("swapped", "DELETE", "IN_PROGRESS", ""),
            ("swapped", "DELETE", "COMPLETE", ""),
            # Its old version had no physical resource: dropped without an event.
            ("retried", "CREATE", "IN_PROGRESS", replacement_reason(3)),
            ("retried", "CREATE", "COMPLETE", ""),
            ("reinstated", "UPDATE", "COMPLETE", "version 0 reinstated"),
            ("reinstated", "DELETE", "IN_PROGRESS", ""),
            ("reinstated", "DELETE", "COMPLETE", ""),
            ("gone", "DELETE", "IN_PROGRESS", ""),
            ("gone", "DELETE", "COMPLETE", ""),
            ("kept", "DELETE", "COMPLETE", "deletion_policy is Retain"),
            ("broken", "CREATE", "IN_PROGRESS", ""),
            ("broken", "CREATE", "FAILED", "boom: quota exceeded"),
            # Replaced, then its old version's delete failed: failed.
            ("stuck", "CREATE", "IN_PROGRESS", replacement_reason(0)),
            ("stuck", "CREATE", "COMPLETE", ""),
            ("stuck", "DELETE", "IN_PROGRESS", ""),
            ("stuck", "DELETE", "FAILED", "still in use"),
            ("unhealthy", "CHECK", "COMPLETE", ""),
        ],
    )
    # A superseded traversal finishing a delete it began, and the stack's own events: not
    # this operation's resources.
    _happen(database_url, stack_id, older, [("late", "DELETE", "COMPLETE", "")])
    with session_scope(database_url) as session:
        Events(session).add([EventRecord(stack_id, "UPDATE", "FAILED", "x", traversal=traversal)])

    assert _finish(database_url, stack_id, traversal, OperationOutcome.FAILED)

    [row] = _history(database_url, stack_id)
    assert (row.result, row.reason, row.traversal) == ("FAILED", "it ended", traversal)
    # created, updated, replaced, deleted, failed
    assert _counts(row) == (1, 1, 3, 2, 2)
    assert [(f.resource, f.reason) for f in row.failures] == [
        ("broken", "boom: quota exceeded"),
        ("stuck", "still in use"),
    ]
    assert row.ended_at is not None and row.ended_at >= row.started_at
    # Ended once: a second end (a repeated completion) changes nothing.
    assert not _finish(database_url, stack_id, traversal, OperationOutcome.COMPLETE)
    assert _history(database_url, stack_id)[0].result == "FAILED"


def test_a_new_operation_supersedes_the_one_in_progress_with_what_it_did(
    database_url: str,
) -> None:
    stack_id, first, second = _stack(database_url), str(uuid.uuid4()), str(uuid.uuid4())
    _start(database_url, stack_id, first)
    _happen(database_url, stack_id, first, [("a", "CREATE", "COMPLETE", "")])
    _start(database_url, stack_id, second, action="DELETE")

    newer, older = _history(database_url, stack_id)
    assert (older.traversal, older.result) == (first, "SUPERSEDED")
    assert older.reason == "Superseded by the next operation"
    assert _counts(older) == (1, 0, 0, 0, 0) and older.ended_at is not None
    assert (newer.traversal, newer.action, newer.result) == (second, "DELETE", "IN_PROGRESS")
    assert newer.ended_at is None
    # The superseded traversal's own completion comes too late to change its row.
    assert not _finish(database_url, stack_id, first, OperationOutcome.COMPLETE)


def test_a_restart_goes_on_as_the_same_operation_counting_both_traversals(
    database_url: str,
) -> None:
    stack_id, first, second = _stack(database_url), str(uuid.uuid4()), str(uuid.uuid4())
    op_id = _start(database_url, stack_id, first)
    _happen(database_url, stack_id, first, [("a", "CREATE", "COMPLETE", "")])
    with session_scope(database_url) as session:
        assert Operations(session).resume(stack_id=stack_id, old=first, new=second)
        # Nothing in progress under that traversal any more.
        assert not Operations(session).resume(stack_id=stack_id, old=first, new=second)
    _happen(database_url, stack_id, second, [("b", "CREATE", "COMPLETE", "")])

    assert _finish(database_url, stack_id, second, OperationOutcome.COMPLETE)

    [row] = _history(database_url, stack_id)
    assert (row.id, row.traversal, row.watchdog_restarts) == (op_id, second, 1)
    assert _counts(row) == (2, 0, 0, 0, 0)


def test_failures_keep_the_first_ones_and_the_count_all(database_url: str) -> None:
    stack_id, traversal = _stack(database_url), str(uuid.uuid4())
    _start(database_url, stack_id, traversal, action="CREATE")
    many = FAILURES_KEPT + 7
    _happen(
        database_url,
        stack_id,
        traversal,
        [(f"r{i:03}", "CREATE", "FAILED", "x" * 5000) for i in range(many)],
    )

    assert _finish(database_url, stack_id, traversal, OperationOutcome.FAILED)

    [row] = _history(database_url, stack_id)
    assert row.resources_failed == many
    assert [f.resource for f in row.failures] == [f"r{i:03}" for i in range(FAILURES_KEPT)]
    assert {len(f.reason) for f in row.failures} == {1000}


def test_history_pages_newest_first(database_url: str) -> None:
    stack_id = _stack(database_url)
    ids = [_start(database_url, stack_id, str(uuid.uuid4())) for _ in range(5)]

    first = _history(database_url, stack_id, limit=2)
    assert [r.id for r in first] == ids[::-1][:2]
    rest = _history(database_url, stack_id, limit=10, before=first[-1].id)
    assert [r.id for r in rest] == ids[::-1][2:]
    # Only the newest is in progress: each start superseded the one before.
    assert [r.result for r in first + rest] == ["IN_PROGRESS"] + ["SUPERSEDED"] * 4


def test_bad_ids_are_refused_before_any_sql(database_url: str) -> None:
    with session_scope(database_url) as session, pytest.raises(InvalidInput):
        Operations(session).start(
            stack_id="not-a-uuid",
            tenant="t",
            traversal=str(uuid.uuid4()),
            action="CREATE",
            first_event_id=None,
            superseded_reason="",
        )
