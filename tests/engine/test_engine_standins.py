"""The stand-ins hold to what they stand in for: a transaction commits or writes nothing; the
node store keeps node_statements.py's lease rules (who may claim, the waiter, expiry, the
nonce every write names, the reinstate guard); the SyncPoints keep finish.lua's."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from standins import (
    AbortedTransaction,
    StandinClock,
    StandinDatabase,
    StandinNodeStore,
    StandinSyncPoints,
)

from conv_tasks.db import NewStack, NodeEvent
from conv_tasks.errors import Duplicate, InvalidInput
from conv_tasks.syncpoint import STACK_POINT, FinishOutcome, PointSpec

TTL = 30.0


@pytest.fixture
def database() -> StandinDatabase:
    return StandinDatabase(StandinClock())


def _stack(db: StandinDatabase, name: str = "s") -> tuple[str, str, int]:
    """A stack in progress with one INIT version of `r`: its id, traversal and template."""
    stack_id, traversal = str(uuid.uuid4()), str(uuid.uuid4())
    with db.transaction() as tx:
        raw = tx.templates.add({"heat_template_version": "2018-08-31"}, {})
        tx.stacks.add(NewStack(stack_id, name, "t", "CREATE", "IN_PROGRESS", False, None, None, ()))
        tx.stacks.swap_traversal(stack_id, None, traversal, raw_template_id=raw.id)
        tx.resources.add([{"stack_id": stack_id, "name": "r", "type": "OS::Heat::None"}])
    return stack_id, traversal, raw.id


@contextmanager
def _store(db: StandinDatabase, stack: tuple[str, str, int]) -> Iterator[StandinNodeStore]:
    stack_id, traversal, template_id = stack
    with db.node_store(
        stack_id=stack_id, traversal=traversal, template_id=template_id, nonce=str(uuid.uuid4())
    ) as store:
        yield store  # type: ignore[misc]


def _fields(template_id: int, definition_hash: str) -> dict[str, object]:
    return {
        "type": "OS::Heat::None",
        "physical_id": None,
        "action": "CREATE",
        "status_reason": "",
        "template_id": template_id,
        "properties_data": {},
        "plugin_data": {},
        "definition_hash": definition_hash,
        "requires": [],
        "deletion_policy": "Delete",
        "action_started_at": datetime.now(UTC),
    }


# ---------------------------------------------------------------- transactions


def test_a_transaction_that_raises_writes_nothing(database: StandinDatabase) -> None:
    with pytest.raises(RuntimeError), database.transaction() as tx:
        tx.templates.add({"heat_template_version": "2018-08-31"}, {})
        raise RuntimeError("the block fails")
    assert database.template_ids() == set()


def test_a_broken_constraint_spoils_the_transaction(database: StandinDatabase) -> None:
    _stack(database)
    with pytest.raises(AbortedTransaction), database.transaction() as tx:
        with pytest.raises(Duplicate):
            tx.stacks.add(
                NewStack(
                    str(uuid.uuid4()), "s", "t", "CREATE", "IN_PROGRESS", False, None, None, ()
                )
            )
        tx.templates.add({}, {})  # PostgreSQL refuses every statement after the error
    assert len(database.stacks()) == 1


def test_a_concurrent_commit_is_seen_by_the_next_statement(database: StandinDatabase) -> None:
    stack_id, traversal, _ = _stack(database)
    rival = str(uuid.uuid4())

    def rival_swaps() -> None:
        with database.transaction() as tx:
            assert tx.stacks.swap_traversal(stack_id, traversal, rival)

    database.before("stacks.swap_traversal", rival_swaps)
    with database.transaction() as tx:
        assert not tx.stacks.swap_traversal(stack_id, traversal, str(uuid.uuid4()))
    assert database.stack(stack_id).current_traversal == rival


# ---------------------------------------------------------------- node store


def test_a_held_lease_records_the_waiter_and_its_release_hands_it_back(
    database: StandinDatabase,
) -> None:
    stack = _stack(database)
    with _store(database, stack) as holder, _store(database, stack) as other:
        [mine] = holder.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="A").versions
        blocked = other.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="B")
        assert mine.held and not blocked.versions[0].held and blocked.queued
        assert other.waiting("r", "B")
        written = holder.write(mine, {"status": "COMPLETE"})
        assert written.ok and written.woken == ("B",)
        assert not other.waiting("r", "B")
        assert (
            other.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="B").versions[0].held
        )


def test_an_expired_lease_is_taken_and_its_old_holder_writes_nothing(
    database: StandinDatabase,
) -> None:
    stack = _stack(database)
    with _store(database, stack) as slow, _store(database, stack) as fresh:
        [version] = slow.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="A").versions
        assert (
            not fresh.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="B")
            .versions[0]
            .held
        )
        database.clock.advance(TTL + 1)
        assert (
            fresh.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="B").versions[0].held
        )
        assert not slow.write(version, {"status": "FAILED"}, [NodeEvent("CREATE", "FAILED")]).ok
    assert database.resources(stack[0])[0].status == "COMPLETE"
    assert database.events(stack[0]) == []


def test_a_superseded_traversal_or_another_template_claims_nothing(
    database: StandinDatabase,
) -> None:
    stack_id, traversal, template_id = _stack(database)
    for stale in (
        (stack_id, traversal, template_id + 1),
        (stack_id, str(uuid.uuid4()), template_id),
    ):
        with _store(database, stale) as store:
            claim = store.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="w")
        assert claim.stack is not None and not claim.stack.current
        assert not claim.versions[0].held and not claim.queued
    assert database.leases(stack_id) == {database.resources(stack_id)[0].id: (None, None)}


def test_a_clean_up_never_claims_the_head_of_a_resource_in_the_template(
    database: StandinDatabase,
) -> None:
    stack = _stack(database)
    with _store(database, stack) as store:
        kept = store.claim("r", cleanup=True, in_template=True, ttl=TTL, waiter="w")
        gone = store.claim("r", cleanup=True, in_template=False, ttl=TTL, waiter="w")
        assert not kept.versions[0].held and gone.versions[0].held
        ids, woken = store.drop(
            gone.versions, {gone.versions[0].id: [NodeEvent("DELETE", "COMPLETE")]}
        )
    assert ids == {gone.versions[0].id} and woken == ()
    assert database.resources(stack[0]) == []
    assert [e.state for e in database.events(stack[0])] == ["DELETE_COMPLETE"]


def _replaced(database: StandinDatabase, stack: tuple[str, str, int]) -> None:
    """Version 0 (p-0, h0) replaced by version 1 (p-1, h1), both complete, neither held."""
    with _store(database, stack) as store:
        [head] = store.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="w").versions
        store.write(
            head,
            {"action": "CREATE", "physical_id": "p-0", "definition_hash": "h0"},
            release=False,
            ttl=TTL,
        )
        [head] = store.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="w").versions
        new, _ = store.start_version(
            head, version=1, in_place=False, fields=_fields(stack[2], "h1"), reason="", ttl=TTL
        )
        assert new is not None
        again, _ = store.start_version(
            head, version=1, in_place=False, fields=_fields(stack[2], "h1"), reason="", ttl=TTL
        )
        assert again is None  # the head is no longer ours
        assert store.write(new, {"status": "COMPLETE", "physical_id": "p-1"}).ok


@pytest.mark.parametrize("change", [None, "leased by a clean-up that died", "failed since"])
def test_only_an_untouched_older_version_is_reinstated(
    database: StandinDatabase, change: str | None
) -> None:
    stack = _stack(database)
    _replaced(database, stack)
    old, new = database.resources(stack[0])
    with _store(database, stack) as reader:
        claim = reader.claim("r", cleanup=False, in_template=True, ttl=TTL, waiter="w")
        keep = next(v for v in claim.versions if v.id == old.id)
        head = next(v for v in claim.versions if v.held)
        if change == "leased by a clean-up that died":
            with _store(database, stack) as cleanup:
                assert (
                    cleanup.claim("r", cleanup=True, in_template=True, ttl=1, waiter="c")
                    .versions[0]
                    .held
                )
            database.clock.advance(5)  # its lease ran out, but it never let go
        elif change == "failed since":
            with database.work() as work:
                work.update("resource", old.id, status="FAILED")
        kept, _ = reader.reinstate(head, keep, reason="version 0 reinstated", ttl=TTL)
    old_now, new_now = database.resources(stack[0])
    if change is None:
        assert kept is not None and (kept.version, kept.physical_id) == (0, "p-0")
        assert (old_now.replaced_by, new_now.replaced_by) == (None, old.id)
    else:
        assert kept is None
        assert (old_now.replaced_by, new_now.replaced_by) == (new.id, None)


# ---------------------------------------------------------------- SyncPoints


def test_a_point_completes_once_each_predecessor_counted_once() -> None:
    points = StandinSyncPoints(StandinClock())
    traversal = str(uuid.uuid4())
    points.create(
        traversal,
        {
            "a": PointSpec((), ("c",)),
            "b": PointSpec((), ("c",)),
            "c": PointSpec(("a", "b"), (STACK_POINT,)),
            STACK_POINT: PointSpec(("c",), ()),
        },
    )
    assert points.finish(traversal, "a", {"ref": "x"}).triggered == ()
    assert points.finish(traversal, "a", {"ref": "x"}).outcome == FinishOutcome.REPEAT
    assert points.waiting_for(traversal, "c") == {"b"}
    done = points.finish(traversal, "b", {"ref": "y"})
    assert done.triggered == (("c", {"a": {"ref": "x"}, "b": {"ref": "y"}}),)
    # A repeat of the completer triggers c again, until c has started.
    assert [n for n, _ in points.finish(traversal, "b", {"ref": "y"}).triggered] == ["c"]
    points.heartbeat(traversal, "c")
    assert points.finish(traversal, "b", {"ref": "y"}).triggered == ()
    assert points.finish(traversal, "c", {}).stack_input == {"c": {}}
    assert points.finish(traversal, "nowhere", {}).outcome == FinishOutcome.MISSING


def test_a_settled_node_hands_its_predecessors_failures_on_without_a_task() -> None:
    points = StandinSyncPoints(StandinClock())
    traversal = str(uuid.uuid4())
    points.create(
        traversal,
        {
            "a": PointSpec((), ("b",)),
            "b": PointSpec(("a",), ("c",)),
            "c": PointSpec(("b",), (STACK_POINT,)),
            STACK_POINT: PointSpec(("c",), ()),
        },
    )
    handoff = points.finish(traversal, "a", {"failed": ["a: boom"]}, settled=["b"])
    assert handoff.triggered == (("c", {"b": {"failed": ["a: boom"]}}),)
    with pytest.raises(InvalidInput):
        points.finish("{bad}", "a", {})
