"""The statements of the purge: deleted stacks with their rows, and old events of live stacks.

Each delete is one statement that removes at most `limit` rows, chosen with
`FOR UPDATE SKIP LOCKED`: a row another transaction holds is left for the next
batch or the next run, never waited for, so a purge never queues behind live
traffic nor makes it queue (the rows it takes are ones nobody else writes:
events, and the rows of stacks deleted long ago). Callers run each batch in
a transaction of its own (the engine's retention).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.orm import Session

_EVENTS_OF_DELETED_STACKS = """
DELETE FROM event WHERE id IN (
    SELECT e.id FROM event e JOIN stack s ON s.id = e.stack_id
    WHERE s.deleted_at < :before
    LIMIT :limit FOR UPDATE OF e SKIP LOCKED)
"""

_RESOURCES_OF_DELETED_STACKS = """
DELETE FROM resource WHERE id IN (
    SELECT r.id FROM resource r JOIN stack s ON s.id = r.stack_id
    WHERE s.deleted_at < :before
    LIMIT :limit FOR UPDATE OF r SKIP LOCKED)
"""

_OPERATIONS_OF_DELETED_STACKS = """
DELETE FROM stack_operation WHERE id IN (
    SELECT o.id FROM stack_operation o JOIN stack s ON s.id = o.stack_id
    WHERE s.deleted_at < :before
    LIMIT :limit FOR UPDATE OF o SKIP LOCKED)
"""

# Only stacks already emptied: the cascade of a stack row then deletes nothing, or the few rows
# written since, so no transaction ever deletes more than its batch.
_EMPTIED_DELETED_STACKS = """
DELETE FROM stack WHERE id IN (
    SELECT s.id FROM stack s
    WHERE s.deleted_at < :before
      AND NOT EXISTS (SELECT 1 FROM event e WHERE e.stack_id = s.id)
      AND NOT EXISTS (SELECT 1 FROM resource r WHERE r.stack_id = s.id)
      AND NOT EXISTS (SELECT 1 FROM stack_operation o WHERE o.stack_id = s.id)
    LIMIT :limit FOR UPDATE OF s SKIP LOCKED)
"""


@dataclass(frozen=True)
class EventFloors:
    """Per live stack with events to purge, the highest event id that may go.

    Below the floor: the stack's events that are neither among its latest
    `keep` nor newer than the oldest event kept for its age. Events arriving
    later only add ids above it, so floors read once hold for a whole run.
    """

    stack_ids: tuple[str, ...]
    floors: tuple[int, ...]

    def __bool__(self) -> bool:
        return bool(self.stack_ids)


# One pass over the events older than the cut-off (grouped by stack), then, per stack found,
# an index walk down its newest `keep` events: the (keep + 1)-th newest is the first that may
# go. A stack with no more than `keep` events has no such event, and no floor.
_EVENT_FLOORS = """
SELECT old.stack_id, LEAST(old.last_id, kept.id)
FROM (
    SELECT e.stack_id, max(e.id) AS last_id
    FROM event e JOIN stack s ON s.id = e.stack_id AND s.deleted_at IS NULL
    WHERE e.created_at < :before
    GROUP BY e.stack_id
) old
CROSS JOIN LATERAL (
    SELECT x.id FROM event x WHERE x.stack_id = old.stack_id
    ORDER BY x.id DESC OFFSET :keep LIMIT 1
) kept
ORDER BY old.stack_id
"""

_OLD_EVENTS_OF_LIVE_STACKS = """
DELETE FROM event WHERE id IN (
    SELECT e.id
    FROM unnest(CAST(:stack_ids AS varchar[]), CAST(:floors AS bigint[])) AS f(stack_id, floor)
    JOIN event e ON e.stack_id = f.stack_id AND e.id <= f.floor
    WHERE e.created_at < :before
    LIMIT :limit FOR UPDATE OF e SKIP LOCKED)
"""


class Purges:
    """The purge's statements, each in the caller's transaction (one batch)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def now(self) -> datetime:
        """The database's clock: cut-offs are measured against the clock that stamped the
        rows."""
        now: datetime = self._session.execute(text("SELECT now()")).scalar_one()
        return now

    def _deleted(self, statement: str, deleted_before: datetime, limit: int) -> int:
        result = self._session.execute(text(statement), {"before": deleted_before, "limit": limit})
        return int(result.rowcount)  # type: ignore[attr-defined]

    def events_of_deleted_stacks(self, deleted_before: datetime, limit: int) -> int:
        """Delete up to `limit` events of stacks deleted before `deleted_before`."""
        return self._deleted(_EVENTS_OF_DELETED_STACKS, deleted_before, limit)

    def resources_of_deleted_stacks(self, deleted_before: datetime, limit: int) -> int:
        """Delete up to `limit` resource rows of stacks deleted before `deleted_before`."""
        return self._deleted(_RESOURCES_OF_DELETED_STACKS, deleted_before, limit)

    def operations_of_deleted_stacks(self, deleted_before: datetime, limit: int) -> int:
        """Delete up to `limit` operation rows (history) of stacks deleted before
        `deleted_before`."""
        return self._deleted(_OPERATIONS_OF_DELETED_STACKS, deleted_before, limit)

    def emptied_stacks(self, deleted_before: datetime, limit: int) -> int:
        """Delete up to `limit` stacks deleted before `deleted_before` that have no rows left."""
        return self._deleted(_EMPTIED_DELETED_STACKS, deleted_before, limit)

    def event_floors(self, created_before: datetime, keep: int) -> EventFloors:
        """The floors of the live stacks that have events created before `created_before`."""
        rows = self._session.execute(
            text(_EVENT_FLOORS), {"before": created_before, "keep": keep}
        ).all()
        return EventFloors(tuple(str(row[0]) for row in rows), tuple(int(row[1]) for row in rows))

    def old_events(self, floors: EventFloors, created_before: datetime, limit: int) -> int:
        """Delete up to `limit` events below their stack's floor created before
        `created_before`."""
        result = self._session.execute(
            text(_OLD_EVENTS_OF_LIVE_STACKS),
            {
                "stack_ids": list(floors.stack_ids),
                "floors": list(floors.floors),
                "before": created_before,
                "limit": limit,
            },
        )
        return int(result.rowcount)  # type: ignore[attr-defined]
