"""The node's repository operations against the real PostgreSQL: leases, waiters, races.

Each operation is one statement on an autocommit connection; these tests
prove what the statements promise: one lease holder at a time, a waiter
recorded and handed back by whoever releases, nothing written by a node
whose lease was taken over, and exactly one statement per operation.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from multiprocessing import get_context
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError

from conv_tasks.db.models import Event, Resource, Stack
from conv_tasks.db.nodes import NodeEvent, NodeStore
from conv_tasks.db.session import driver_url, node_connection, session_scope, statement_count
from conv_tasks.db.templates import Templates
from conv_tasks.errors import InvalidInput
from conv_tasks.faults import TRANSIENT_FAULTS

CONTENDERS = 8


def _new_stack(url: str) -> tuple[str, str, int]:
    stack_id, traversal = str(uuid.uuid4()), str(uuid.uuid4())
    with session_scope(url) as session:
        tmpl = Templates(session).add({"heat_template_version": "2018-08-31"}, {})
        session.add(
            Stack(
                id=stack_id,
                name=f"s-{stack_id[:8]}",
                tenant="t",
                action="CREATE",
                status="IN_PROGRESS",
                raw_template_id=tmpl.id,
                current_traversal=traversal,
            )
        )
        session.flush()
        session.add(Resource(stack_id=stack_id, name="r", version=0, type="OS::Heat::None"))
    return stack_id, traversal, tmpl.id


@contextmanager
def _store(
    url: str, stack: tuple[str, str, int], nonce: str | None = None, continues: str | None = None
) -> Iterator[NodeStore]:
    stack_id, traversal, template_id = stack
    with node_connection(url) as conn:
        yield NodeStore(
            conn,
            stack_id=stack_id,
            traversal=traversal,
            template_id=template_id,
            nonce=nonce or str(uuid.uuid4()),
            continues=continues,
        )


def _claim(store: NodeStore, *, ttl: float = 30, waiter: str = "w", cleanup: bool = False) -> Any:
    return store.claim("r", cleanup=cleanup, in_template=True, ttl=ttl, waiter=waiter)


def _rows(url: str, stack_id: str) -> list[Resource]:
    with session_scope(url) as session:
        return list(
            session.scalars(
                select(Resource).where(Resource.stack_id == stack_id).order_by(Resource.version)
            )
        )


def _events(url: str, stack_id: str) -> list[tuple[str, str, str]]:
    with session_scope(url) as session:
        rows = session.scalars(select(Event).where(Event.stack_id == stack_id).order_by(Event.id))
        return [(e.action, e.status, e.reason) for e in rows]


def _try_claim(url: str, stack: tuple[str, str, int], barrier_at: float) -> str | None:
    nonce = str(uuid.uuid4())
    while time.time() < barrier_at:
        time.sleep(0.001)
    with _store(url, stack, nonce) as store:
        claim = _claim(store)
    return nonce if claim.versions[0].held else None


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(CONTENDERS, mp_context=get_context("spawn")) as executor:
        yield executor


@pytest.mark.parametrize("attempt", range(20))
def test_claim_race_has_exactly_one_winner(
    database_url: str, pool: ProcessPoolExecutor, attempt: int
) -> None:
    stack = _new_stack(database_url)
    barrier = time.time() + 0.3
    args = [(database_url, stack, barrier)] * CONTENDERS
    winners = [r for r in pool.map(_try_claim, *zip(*args, strict=True)) if r is not None]
    assert len(winners) == 1
    assert _rows(database_url, stack[0])[0].lock_nonce == winners[0]


def test_a_held_lease_records_the_waiter_and_release_hands_it_back(database_url: str) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as holder, _store(database_url, stack) as other:
        mine = _claim(holder).versions[0]
        assert mine.held
        blocked = _claim(other, waiter="T 1 update:r")
        assert not blocked.versions[0].held and blocked.queued
        assert _rows(database_url, stack[0])[0].waiter == "T 1 update:r"
        # The holder renews: nothing is released, nobody is woken.
        assert _claim(holder).versions[0].held
        written = holder.write(mine, {"status": "COMPLETE"}, release=True)
        assert written.ok and written.woken == ("T 1 update:r",)
        row = _rows(database_url, stack[0])[0]
        assert row.lock_nonce is None and row.waiter is None
        assert _claim(other).versions[0].held


def test_an_expired_lease_can_be_taken_and_its_old_holder_writes_nothing(
    database_url: str,
) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as slow, _store(database_url, stack) as fresh:
        version = _claim(slow, ttl=0.2).versions[0]
        time.sleep(0.5)
        assert _claim(fresh).versions[0].held
        stale = slow.write(version, {"status": "FAILED"}, [NodeEvent("CREATE", "FAILED")])
        assert not stale.ok
    assert _rows(database_url, stack[0])[0].status == "COMPLETE"
    assert _events(database_url, stack[0]) == []


def test_a_poll_delivered_twice_is_held_by_one_delivery_only(database_url: str) -> None:
    """A poll message carries the nonce of the lease it continues; each delivery takes the
    lease under a nonce of its own. Two deliveries of one poll (a redelivery after a
    partition, the worker that held it coming back) never both hold it: the second finds
    the lease renewed under the first's nonce, and its late write is refused (issue 23)."""
    stack = _new_stack(database_url)
    with _store(database_url, stack) as starter:
        version = _claim(starter).versions[0]
        assert version.held
    poll = starter.nonce  # what the poll message carries
    with (
        _store(database_url, stack, continues=poll) as first,
        _store(database_url, stack, continues=poll) as copy,
    ):
        mine = _claim(first).versions[0]
        assert mine.held and mine.lock_nonce == first.nonce
        assert not _claim(copy).versions[0].held
        assert not copy.write(version, {"status": "FAILED"}).ok
        assert first.write(mine, {"status": "COMPLETE"}).ok
    assert _rows(database_url, stack[0])[0].lock_nonce is None


def test_a_poll_redelivered_after_its_lease_expired_fences_the_first_delivery(
    database_url: str,
) -> None:
    """The worker holding a poll is cut off past the lease: the poll's copy takes the lease
    over, and the first delivery, back late with the same message, claims and writes
    nothing (issue 23)."""
    stack = _new_stack(database_url)
    with _store(database_url, stack) as starter:
        assert _claim(starter, ttl=0.2).versions[0].held
    poll = starter.nonce
    with (
        _store(database_url, stack, continues=poll) as stale,
        _store(database_url, stack, continues=poll) as copy,
    ):
        held = _claim(stale, ttl=0.2).versions[0]
        assert held.held
        time.sleep(0.5)  # the stale delivery's lease runs out while it is cut off
        assert _claim(copy).versions[0].held
        assert not _claim(stale).versions[0].held
        assert not stale.write(held, {"status": "FAILED"}, [NodeEvent("CREATE", "FAILED")]).ok
    row = _rows(database_url, stack[0])[0]
    assert row.lock_nonce == copy.nonce and row.status == "COMPLETE"
    assert _events(database_url, stack[0]) == []


def test_a_superseded_traversal_claims_nothing_new(database_url: str) -> None:
    stack_id, traversal, template_id = _new_stack(database_url)
    with session_scope(database_url) as session:
        session.get(Stack, stack_id).current_traversal = str(uuid.uuid4())
    with _store(database_url, (stack_id, traversal, template_id)) as store:
        claim = _claim(store)
    assert claim.stack is not None and not claim.stack.current
    assert not claim.versions[0].held and not claim.queued
    assert _rows(database_url, stack_id)[0].lock_nonce is None


def test_a_payload_naming_another_template_is_not_current(database_url: str) -> None:
    stack_id, traversal, template_id = _new_stack(database_url)
    with _store(database_url, (stack_id, traversal, template_id + 1000)) as store:
        claim = _claim(store)
    assert claim.stack is not None and not claim.stack.current
    assert not claim.versions[0].held


def test_a_new_version_takes_over_and_the_old_is_purged_when_it_finishes(
    database_url: str,
) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        head = _claim(store).versions[0]
        store.write(head, {"action": "CREATE", "physical_id": "p-1"}, release=False, ttl=30)
        head = _claim(store).versions[0]
        new, woken = store.start_version(
            head,
            version=1,
            in_place=True,
            fields={
                "type": "OS::Heat::None",
                "physical_id": "p-1",
                "action": "UPDATE",
                "status_reason": "",
                "template_id": stack[2],
                "properties_data": {"rev": 2},
                "plugin_data": {},
                "definition_hash": "h2",
                "requires": [],
                "deletion_policy": "Delete",
                "action_started_at": datetime.now(UTC),
            },
            reason="",
            ttl=30,
        )
        assert new is not None and woken == ()
        old, current = _rows(database_url, stack[0])
        assert (old.replaced_by, old.physical_id, old.lock_nonce) == (new.id, None, None)
        assert (current.status, current.lock_nonce, current.replaces) == (
            "IN_PROGRESS",
            store.nonce,
            old.id,
        )
        done = store.write(
            new,
            {"status": "COMPLETE"},
            [NodeEvent("UPDATE", "COMPLETE", "", "p-1")],
            purge=new.replaces,
        )
        assert done.ok and done.purged
    [only] = _rows(database_url, stack[0])
    assert (only.version, only.status, only.properties_data) == (1, "COMPLETE", {"rev": 2})
    assert _events(database_url, stack[0]) == [
        ("UPDATE", "IN_PROGRESS", ""),
        ("UPDATE", "COMPLETE", ""),
    ]


def _replaced_twice(url: str, stack: tuple[str, str, int]) -> None:
    """Version 0 (p-0, hash h0) replaced by version 1 (p-1, h1), both complete, none held."""
    with _store(url, stack) as store:
        head = _claim(store).versions[0]
        store.write(
            head,
            {"action": "CREATE", "physical_id": "p-0", "definition_hash": "h0"},
            release=False,
            ttl=30,
        )
        head = _claim(store).versions[0]
        new, _ = store.start_version(
            head,
            version=1,
            in_place=False,
            fields={
                "type": "OS::Heat::None",
                "physical_id": None,
                "action": "CREATE",
                "status_reason": "",
                "template_id": stack[2],
                "properties_data": {},
                "plugin_data": {},
                "definition_hash": "h1",
                "requires": [],
                "deletion_policy": "Delete",
                "action_started_at": datetime.now(UTC),
            },
            reason="replacing version 0",
            ttl=30,
        )
        assert new is not None
        assert store.write(new, {"status": "COMPLETE", "physical_id": "p-1"}).ok


def _reinstating(url: str, stack: tuple[str, str, int], keep: Any) -> Any:
    with _store(url, stack) as store:
        claim = _claim(store)
        head = next(v for v in claim.versions if v.replaced_by is None)
        kept, _ = store.reinstate(head, keep, reason="version 0 reinstated", ttl=30)
        if kept is None:
            store.write(head, {})
        return kept


def test_an_untouched_older_version_is_reinstated(database_url: str) -> None:
    stack = _new_stack(database_url)
    _replaced_twice(database_url, stack)
    with _store(database_url, stack) as reader:
        keep = next(v for v in _claim(reader).versions if v.version == 0)
        reader.write(next(v for v in _claim(reader).versions if v.held), {})
    kept = _reinstating(database_url, stack, keep)
    assert kept is not None and (kept.version, kept.physical_id) == (0, "p-0")
    old, new = _rows(database_url, stack[0])
    assert old.replaced_by is None and new.replaced_by == old.id


@pytest.mark.parametrize("change", ["leased-by-a-dead-clean-up", "its-state-changed"])
def test_a_version_changed_since_it_was_read_is_not_reinstated(
    database_url: str, change: str
) -> None:
    stack = _new_stack(database_url)
    _replaced_twice(database_url, stack)
    with _store(database_url, stack) as reader:
        claim = _claim(reader)
        keep = next(v for v in claim.versions if v.version == 0)
        reader.write(next(v for v in claim.versions if v.held), {})
    if change == "leased-by-a-dead-clean-up":
        # A clean-up leases version 0, may begin deleting it, and dies: its lease runs out
        # but is never let go.
        with _store(database_url, stack) as cleanup:
            assert _claim(cleanup, ttl=0.1, cleanup=True).versions[0].held
        time.sleep(0.3)
    else:
        with session_scope(database_url) as session:
            session.get(Resource, keep.id).status = "FAILED"
    assert _reinstating(database_url, stack, keep) is None
    old, new = _rows(database_url, stack[0])
    assert old.replaced_by == new.id and new.replaced_by is None and new.lock_nonce is None


def test_drop_deletes_only_what_we_hold_with_its_events(database_url: str) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        # Every version of a resource that left the template is a victim of its clean-up.
        claim = store.claim("r", cleanup=True, in_template=False, ttl=30, waiter="w")
        [victim] = claim.versions
        assert victim.held
        gone, woken = store.drop(
            [victim],
            {victim.id: [NodeEvent("DELETE", "IN_PROGRESS"), NodeEvent("DELETE", "COMPLETE")]},
        )
    assert gone == {victim.id} and woken == ()
    assert _rows(database_url, stack[0]) == []
    assert _events(database_url, stack[0]) == [
        ("DELETE", "IN_PROGRESS", ""),
        ("DELETE", "COMPLETE", ""),
    ]


def test_a_clean_up_never_claims_the_head_of_a_resource_in_the_template(
    database_url: str,
) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        claim = _claim(store, cleanup=True)
    assert not claim.versions[0].held and not claim.queued
    assert _rows(database_url, stack[0])[0].lock_nonce is None


def test_each_operation_is_one_statement(database_url: str) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        before = statement_count()
        version = _claim(store).versions[0]
        store.write(version, {"status": "COMPLETE"}, [NodeEvent("CREATE", "COMPLETE")])
        assert statement_count() - before == 2


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"stack_id": "nope"}, "stack_id"),
        ({"traversal": "nope"}, "traversal"),
        ({"nonce": 7}, "nonce"),
        ({"template_id": 0}, "template_id"),
    ],
)
def test_malformed_store_input_is_refused(
    database_url: str, change: dict[str, Any], fragment: str
) -> None:
    stack_id, traversal, template_id = _new_stack(database_url)
    args: dict[str, Any] = {
        "stack_id": stack_id,
        "traversal": traversal,
        "template_id": template_id,
        "nonce": str(uuid.uuid4()),
        **change,
    }
    with node_connection(database_url) as conn, pytest.raises(InvalidInput) as info:
        NodeStore(conn, **args)
    assert fragment in str(info.value)


def test_unknown_fields_and_bad_ttl_write_nothing(database_url: str) -> None:
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        with pytest.raises(InvalidInput, match="ttl"):
            _claim(store, ttl=0)
        version = _claim(store).versions[0]
        with pytest.raises(InvalidInput, match="lock_holder"):
            store.write(version, {"lock_holder": "me"})
    row = _rows(database_url, stack[0])[0]
    assert row.lock_nonce == store.nonce and row.status == "COMPLETE"


def test_node_statements_run_prepared_with_generic_plans(database_url: str) -> None:
    """Planning was most of a node statement's cost: after a few runs on one connection the
    claim is a prepared statement, planned once for every later execution."""
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        for _ in range(8):
            assert _claim(store).versions[0].held
        conn = store._conn
        assert conn.exec_driver_sql("SHOW plan_cache_mode").scalar() == "force_generic_plan"
        plans = conn.exec_driver_sql(
            "SELECT generic_plans FROM pg_prepared_statements WHERE statement LIKE '%%WITH st AS%%'"
        ).scalars()
        assert max(plans, default=0) >= 1


def test_a_connection_lost_under_a_statement_is_transient_and_never_lent_again(
    database_url: str,
) -> None:
    """Node statements run on the psycopg connection itself: a lost connection must still
    raise SQLAlchemy's OperationalError (a transient fault: the node is retried), without
    its parameters, and must not go back to the pool for the next node."""
    stack = _new_stack(database_url)
    with _store(database_url, stack) as store:
        pid = store._driver.info.backend_pid
        with session_scope(database_url) as session:
            session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        with pytest.raises(OperationalError) as info:
            _claim(store)
        assert isinstance(info.value, TRANSIENT_FAULTS)
        assert store.nonce not in str(info.value)
        assert store._conn.invalidated
    for _ in range(3):  # the node pool holds two connections: none of them is the lost one
        with _store(database_url, stack) as store:
            assert _claim(store).stack is not None


def test_database_urls_name_postgresql_and_get_its_driver() -> None:
    for url in (
        "postgresql://u@h/db",
        "postgres://u@h/db",
        "postgresql+psycopg2://u@h/db",
        "postgresql+psycopg://u@h/db",
    ):
        assert driver_url(url).drivername == "postgresql+psycopg"
        assert driver_url(url).database == "db"
    with pytest.raises(ValueError, match="'mysql' is not PostgreSQL"):
        driver_url("mysql://u@h/db")
