"""Events: what happened to a stack and its resources, in order, for the user."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import String, column, insert, select, true, values
from sqlalchemy.orm import Session, aliased

from conv_tasks.db.models import Event
from conv_tasks.db.rows import EventRow, freeze


@dataclass(frozen=True)
class EventRecord:
    stack_id: str
    action: str
    status: str
    reason: str = ""
    resource_name: str | None = None
    physical_id: str | None = None
    traversal: str | None = None


class Events:
    """The event rows, in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, records: Iterable[EventRecord]) -> list[int]:
        """Insert events; returns their ids, in order."""
        rows = [
            {**record.__dict__, "action": str(record.action), "status": str(record.status)}
            for record in records
        ]
        if not rows:
            return []
        stmt = insert(Event).returning(Event.id, sort_by_parameter_order=True)
        return list(self._session.scalars(stmt, rows))

    def list(
        self,
        stack_id: str,
        *,
        resource_name: str | None = None,
        after_id: int = 0,
        latest: int = 0,
    ) -> list[EventRow]:
        """The stack's events after `after_id`, by id; with `latest` n, only the newest n of
        them (still oldest first)."""
        stmt = select(Event).where(Event.stack_id == stack_id, Event.id > after_id)
        if resource_name is not None:
            stmt = stmt.where(Event.resource_name == resource_name)
        if not latest:
            return self._frozen(self._session.scalars(stmt.order_by(Event.id)))
        newest = self._session.scalars(stmt.order_by(Event.id.desc()).limit(latest))
        return self._frozen(reversed(list(newest)))

    def of_stacks(
        self, stack_ids: Sequence[str], *, after_id: int = 0, latest: int = 0
    ) -> builtins.list[EventRow]:
        """The events of these stacks after `after_id`, in one order by id (event ids are one
        sequence); with `latest` n, the newest n of them all together."""
        if len(stack_ids) == 1:
            return self.list(stack_ids[0], after_id=after_id, latest=latest)
        if not stack_ids:
            return []
        if not latest:
            stmt = select(Event).where(Event.stack_id.in_(stack_ids), Event.id > after_id)
            return self._frozen(self._session.scalars(stmt.order_by(Event.id)))
        # Each stack's newest n from its (stack_id, id) index, then the newest n of those: a
        # plain `IN (...) ORDER BY id DESC` would read every event of every stack named, or
        # walk the whole table back from its newest event while other stacks wrote the rest.
        ids = values(column("stack_id", String), name="stacks").data([(i,) for i in stack_ids])
        each = (
            select(Event)
            .where(Event.stack_id == ids.c.stack_id, Event.id > after_id)
            .order_by(Event.id.desc())
            .limit(latest)
            .lateral("newest")
        )
        event = aliased(Event, each)
        stmt = select(event).select_from(ids).join(each, true())
        newest = self._session.scalars(stmt.order_by(event.id.desc()).limit(latest))
        return self._frozen(reversed(list(newest)))

    @staticmethod
    def _frozen(rows: Iterable[Event]) -> builtins.list[EventRow]:
        return [freeze(EventRow, row) for row in rows]

    def first_id(self, stack_id: str) -> int | None:
        """The id of the stack's oldest event still kept (its create's first, until purged)."""
        stmt = select(Event.id).where(Event.stack_id == stack_id).order_by(Event.id).limit(1)
        return self._session.scalars(stmt).first()
