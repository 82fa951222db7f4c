"""The stand-in for conv_tasks.db.purge.Purges: the purge's batches, in the caller's
transaction, with the real statements' choice of rows (and no row ever locked by another)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from conv_tasks.db import EventFloors

from .schema import Row, key_of
from .tables import Work


class Purges:
    def __init__(self, work: Work) -> None:
        self._work = work

    def now(self) -> datetime:
        self._work.statement("purges.now")
        return self._work.now

    def _deleted_before(self, before: datetime) -> set[str]:
        return {
            r["id"]
            for r in self._work.rows("stack")
            if r["deleted_at"] is not None and r["deleted_at"] < before
        }

    def _delete(self, statement: str, table: str, doomed: Callable[[Row], bool], limit: int) -> int:
        self._work.statement(f"purges.{statement}")
        found = [row for row in self._work.rows(table) if doomed(row)][:limit]
        for row in found:
            self._work.delete(table, key_of(table, row))
        return len(found)

    def events_of_deleted_stacks(self, deleted_before: datetime, limit: int) -> int:
        gone = self._deleted_before(deleted_before)
        return self._delete(
            "events_of_deleted_stacks", "event", lambda r: r["stack_id"] in gone, limit
        )

    def resources_of_deleted_stacks(self, deleted_before: datetime, limit: int) -> int:
        gone = self._deleted_before(deleted_before)
        return self._delete(
            "resources_of_deleted_stacks", "resource", lambda r: r["stack_id"] in gone, limit
        )

    def operations_of_deleted_stacks(self, deleted_before: datetime, limit: int) -> int:
        gone = self._deleted_before(deleted_before)
        return self._delete(
            "operations_of_deleted_stacks",
            "stack_operation",
            lambda r: r["stack_id"] in gone,
            limit,
        )

    def emptied_stacks(self, deleted_before: datetime, limit: int) -> int:
        holding = {
            r["stack_id"]
            for table in ("event", "resource", "stack_operation")
            for r in self._work.rows(table)
        }
        empty = self._deleted_before(deleted_before) - holding
        return self._delete("emptied_stacks", "stack", lambda r: r["id"] in empty, limit)

    def event_floors(self, created_before: datetime, keep: int) -> EventFloors:
        self._work.statement("purges.event_floors")
        live = {r["id"] for r in self._work.rows("stack") if r["deleted_at"] is None}
        events = sorted(self._work.rows("event"), key=lambda r: r["id"], reverse=True)
        floors: dict[str, int] = {}
        for stack_id in sorted(live):
            newest_first = [e["id"] for e in events if e["stack_id"] == stack_id]
            old = [
                e["id"]
                for e in events
                if e["stack_id"] == stack_id and e["created_at"] < created_before
            ]
            if old and len(newest_first) > keep:
                floors[stack_id] = min(max(old), newest_first[keep])
        return EventFloors(tuple(floors), tuple(floors.values()))

    def old_events(self, floors: EventFloors, created_before: datetime, limit: int) -> int:
        floor = dict(zip(floors.stack_ids, floors.floors, strict=True))
        return self._delete(
            "old_events",
            "event",
            lambda r: (
                r["stack_id"] in floor
                and r["id"] <= floor[r["stack_id"]]
                and r["created_at"] < created_before
            ),
            limit,
        )
