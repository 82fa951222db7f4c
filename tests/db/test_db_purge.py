"""Retention against the real PostgreSQL: the purge deletes exactly what is past retention,
in batches of its own transactions, skipping rows others hold; beat's job runs it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from retention_world import World, world
from sqlalchemy import event, select

from conv_tasks.db import Database
from conv_tasks.db.models import Event
from conv_tasks.db.session import get_engine, session_scope
from conv_tasks.engine import PurgeReport, RetentionPolicy, purge
from conv_tasks.secrets_at_rest import PLAINTEXT

DAY = 86400.0
# Rows are 25 days old or younger: beat's purge in this session (default 30 days) leaves them.
OLD, RETENTION, INSIDE = 25, 20 * DAY, 10
RECENT = 0.05
POLICY = RetentionPolicy(
    deleted_after=RETENTION, event_retention=RETENTION, events_keep=10, batch_size=4
)


@dataclass
class Stacks:
    gone: str
    recently_deleted: str
    busy: str
    quiet: str
    young: str
    delete_failed: str
    orphan_template: int


@pytest.fixture
def made(database_url: str) -> Iterator[World]:
    with world(database_url) as w:
        yield w


@pytest.fixture
def stacks(made: World) -> Stacks:
    gone = made.stack("gone", created_days=60, deleted_days=OLD, resources=3)
    made.events(gone, 9, days=OLD + 1)
    made.operations(gone, 3)
    recently_deleted = made.stack("recent", created_days=60, deleted_days=INSIDE, resources=2)
    made.events(recently_deleted, 4, days=OLD + 1)
    made.operations(recently_deleted, 2)
    busy = made.stack("busy", created_days=60, resources=3)
    made.events(busy, 20, days=OLD)
    made.events(busy, 5, days=RECENT)
    quiet = made.stack("quiet", created_days=60, resources=1)
    made.events(quiet, 8, days=OLD)
    young = made.stack("young", created_days=OLD)
    made.events(young, 6, days=RECENT)
    # A failed delete leaves the stack live: its events go by age like any live stack's.
    delete_failed = made.stack("half-deleted", created_days=60, status="FAILED")
    made.events(delete_failed, 12, days=OLD)
    return Stacks(
        gone, recently_deleted, busy, quiet, young, delete_failed, made.template(days=OLD)
    )


def test_purge_removes_exactly_what_is_past_retention(made: World, stacks: Stacks) -> None:
    busy_events = made.event_ids(stacks.busy)
    failed_events = made.event_ids(stacks.delete_failed)
    before = {s: made.event_ids(s) for s in (stacks.recently_deleted, stacks.quiet, stacks.young)}

    report = purge(Database(made.url, sealer=PLAINTEXT), POLICY)

    assert (report.stacks, report.resources, report.stack_events) == (1, 3, 9)
    assert report.operations == 3  # the history goes with the stack, in batches too
    # busy: 15 of 25 (the latest 10 stay: 5 recent, 5 old); half-deleted: 2 of 12.
    assert report.old_events == 17
    assert report.finished
    assert not made.stack_exists(stacks.gone)
    assert made.event_ids(stacks.gone) == []
    assert made.resource_count(stacks.gone) == 0
    assert made.operation_count(stacks.gone) == 0
    assert made.operation_count(stacks.recently_deleted) == 2
    assert made.event_ids(stacks.busy) == busy_events[-10:]
    assert made.event_ids(stacks.delete_failed) == failed_events[-10:]
    for stack_id, events in before.items():
        assert made.event_ids(stack_id) == events
    assert made.stack_exists(stacks.recently_deleted)
    assert made.resource_count(stacks.recently_deleted) == 2
    assert made.resource_count(stacks.busy) == 3
    assert made.resource_count(stacks.quiet) == 1
    # Templates nobody refers to go (beat's collector may have taken it first); others stay.
    assert not made.template_exists(stacks.orphan_template)
    assert all(made.template_exists(t) for t in made.templates if t != stacks.orphan_template)

    again = purge(Database(made.url, sealer=PLAINTEXT), POLICY)
    assert (again.stacks, again.resources, again.stack_events, again.old_events) == (0, 0, 0, 0)
    assert again.operations == 0


class Statements:
    """Each transaction the engine commits, as the DELETE statements in it and their rows."""

    def __init__(self) -> None:
        self.transactions: list[list[tuple[str, int]]] = [[]]

    def executed(self, _conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("DELETE FROM"):
            table = statement.split()[2]
            self.transactions[-1].append((table, cursor.rowcount))

    def committed(self, _conn: Any) -> None:
        self.transactions.append([])


@pytest.fixture
def statements(database_url: str) -> Iterator[Statements]:
    seen = Statements()
    engine = get_engine(database_url)
    event.listen(engine, "after_cursor_execute", seen.executed)
    event.listen(engine, "commit", seen.committed)
    try:
        yield seen
    finally:
        event.remove(engine, "after_cursor_execute", seen.executed)
        event.remove(engine, "commit", seen.committed)


def test_purge_deletes_in_batches_of_one_transaction_each(
    made: World, stacks: Stacks, statements: Statements
) -> None:
    report = purge(Database(made.url, sealer=PLAINTEXT), POLICY)
    transactions = statements.transactions[:-1]
    assert len(transactions) == report.transactions
    deletes = [batch for batch in transactions if batch]
    # One DELETE per transaction, never more rows than a batch.
    assert all(len(batch) == 1 for batch in deletes)
    by_table: dict[str, list[int]] = {}
    for [(table, rows)] in deletes:
        by_table.setdefault(table, []).append(rows)
    # Events of the deleted stack (9), then 17 old events of live stacks, four at a time; each
    # kind stops at its first short batch.
    assert by_table["event"] == [4, 4, 1, 4, 4, 4, 4, 1]
    assert by_table["resource"] == [3]
    assert by_table["stack_operation"] == [3]
    assert by_table["stack"] == [1]


def test_rows_another_transaction_holds_are_skipped_not_waited_for(
    made: World, stacks: Stacks
) -> None:
    held = made.event_ids(stacks.busy)[0]
    done = threading.Event()
    result: list[PurgeReport] = []

    def run() -> None:
        result.append(purge(Database(made.url, sealer=PLAINTEXT), POLICY))
        done.set()

    with session_scope(made.url) as holder:
        holder.execute(select(Event).where(Event.id == held).with_for_update())
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        finished = done.wait(timeout=30)
    assert finished, "the purge waited for a row another transaction held"
    worker.join()
    # The held event was skipped (its batch came back short, the rest waits for the next run).
    assert held in made.event_ids(stacks.busy)
    assert result[0].old_events < 17
    again = purge(Database(made.url, sealer=PLAINTEXT), POLICY)
    assert result[0].old_events + again.old_events == 17
    assert held not in made.event_ids(stacks.busy)


def test_never_keeps_everything(made: World, stacks: Stacks) -> None:
    keep_all = RetentionPolicy(
        deleted_after=None, event_retention=None, events_keep=10, batch_size=4
    )
    report = purge(Database(made.url, sealer=PLAINTEXT), keep_all)
    assert (report.stacks, report.resources, report.stack_events, report.old_events) == (0,) * 4
    assert made.stack_exists(stacks.gone)
    assert len(made.event_ids(stacks.busy)) == 25


def test_keeping_no_events_purges_every_old_one(made: World, stacks: Stacks) -> None:
    policy = RetentionPolicy(
        deleted_after=None, event_retention=RETENTION, events_keep=0, batch_size=100
    )
    report = purge(Database(made.url, sealer=PLAINTEXT), policy)
    # busy 20, quiet 8, half-deleted 12; the recent ones stay, deleted stacks are not touched.
    assert report.old_events == 40
    assert len(made.event_ids(stacks.busy)) == 5
    assert made.event_ids(stacks.quiet) == []
    assert len(made.event_ids(stacks.young)) == 6
    assert len(made.event_ids(stacks.gone)) == 9


def test_a_purge_out_of_time_stops_and_the_next_goes_on(made: World, stacks: Stacks) -> None:
    ticks = iter(range(1000))
    report = purge(
        Database(made.url, sealer=PLAINTEXT), POLICY, budget=2.5, clock=lambda: float(next(ticks))
    )
    assert not report.finished
    assert report.stack_events == 8  # two batches, then the budget was spent
    rest = purge(Database(made.url, sealer=PLAINTEXT), POLICY)
    assert rest.finished
    assert report.stack_events + rest.stack_events == 9
    assert (rest.resources, rest.stacks, rest.old_events) == (3, 1, 17)


def test_the_beat_job_purges_with_the_settings(
    made: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conv_tasks.settings import Settings
    from conv_tasks.tasks import beat

    gone = made.stack("gone", created_days=60, deleted_days=OLD, resources=2)
    made.events(gone, 3, days=OLD)
    kept = made.stack("kept", created_days=60, deleted_days=INSIDE)
    settings = Settings.from_env({"CONV_TASKS_PURGE_DELETED_AFTER": "20d"})
    monkeypatch.setattr(beat, "get_settings", lambda: settings)
    result = beat.unfenced_purge()
    assert (result["stacks"], result["resources"], result["stack_events"]) == (1, 2, 3)
    assert result["finished"] is True
    assert not made.stack_exists(gone)
    assert made.stack_exists(kept)
