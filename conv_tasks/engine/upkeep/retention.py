"""Retention: purge stacks deleted long ago, with their rows, and old events of live stacks.

Heat keeps soft-deleted stacks until an operator runs `heat-manage
purge_deleted`; conv_tasks purges them from beat (`conv_tasks.beat.purge`) or
`conv-tasks db purge`. Every batch is a transaction of its own deleting at most
`batch_size` rows (conv_tasks.db's Purges), so a purge of millions of rows never
holds a lock or a snapshot for long; it may run beside another purge and
beside live traffic. It never touches a live stack's resources, nor a deleted
stack inside its retention, nor a live stack's latest `events_keep` events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from conv_tasks.db import Database, Transaction
from conv_tasks.settings import Settings


@dataclass(frozen=True)
class RetentionPolicy:
    """How long rows are kept. Ages are in seconds; None keeps forever."""

    deleted_after: float | None
    event_retention: float | None
    events_keep: int
    batch_size: int

    @classmethod
    def from_settings(cls, settings: Settings) -> RetentionPolicy:
        return cls(
            deleted_after=settings.purge_deleted_after,
            event_retention=settings.event_retention,
            events_keep=settings.events_keep,
            batch_size=settings.purge_batch,
        )


@dataclass(frozen=True)
class PurgeReport:
    """What one purge deleted, and in how many transactions."""

    stacks: int = 0
    resources: int = 0
    # Events of the deleted stacks purged, and old events of live stacks.
    stack_events: int = 0
    # Operation rows (the history) of the deleted stacks purged.
    operations: int = 0
    old_events: int = 0
    templates: int = 0
    transactions: int = 0
    # False when the time budget ran out with rows left: the next run goes on.
    finished: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Run:
    """Counts transactions and watches the time budget of one purge."""

    def __init__(self, db: Database, budget: float | None, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock
        self.deadline = None if budget is None else clock() + budget
        self.transactions = 0
        self.out_of_time = False

    def once(self, step: Callable[[Transaction], Any]) -> Any:
        with self.db.transaction() as tx:
            result = step(tx)
        self.transactions += 1
        return result

    def drain(self, step: Callable[[Transaction, int], int], batch_size: int) -> int:
        """Run `step` in a transaction each time until a batch comes back short."""
        total = 0
        while True:
            if self.deadline is not None and self.clock() >= self.deadline:
                self.out_of_time = True
                return total
            deleted: int = self.once(lambda tx: step(tx, batch_size))
            total += deleted
            # Short: nothing is left, or what is left is locked (the next run takes it).
            if deleted < batch_size:
                return total


def purge(
    db: Database,
    policy: RetentionPolicy,
    *,
    budget: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> PurgeReport:
    """Delete what `policy` no longer keeps, batch by batch; stop early after `budget` seconds."""
    run = _Run(db, budget, clock)
    now: datetime = run.once(lambda tx: tx.purges.now())
    batch = policy.batch_size
    stacks = resources = stack_events = operations = old_events = 0
    if policy.deleted_after is not None:
        before = now - timedelta(seconds=policy.deleted_after)
        stack_events = run.drain(lambda tx, n: tx.purges.events_of_deleted_stacks(before, n), batch)
        resources = run.drain(lambda tx, n: tx.purges.resources_of_deleted_stacks(before, n), batch)
        operations = run.drain(
            lambda tx, n: tx.purges.operations_of_deleted_stacks(before, n), batch
        )
        stacks = run.drain(lambda tx, n: tx.purges.emptied_stacks(before, n), batch)
    if policy.event_retention is not None and not run.out_of_time:
        created_before = now - timedelta(seconds=policy.event_retention)
        floors = run.once(lambda tx: tx.purges.event_floors(created_before, policy.events_keep))
        if floors:
            old_events = run.drain(
                lambda tx, n: tx.purges.old_events(floors, created_before, n), batch
            )
    templates = 0
    if not run.out_of_time:
        templates = run.once(lambda tx: tx.templates.delete_orphaned())
    return PurgeReport(
        stacks=stacks,
        resources=resources,
        stack_events=stack_events,
        operations=operations,
        old_events=old_events,
        templates=templates,
        transactions=run.transactions,
        finished=not run.out_of_time,
    )
