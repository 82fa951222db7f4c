"""Events: what happened to a stack and its resources, in order, for the user."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

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
        self, stack_id: str, *, resource_name: str | None = None, after_id: int = 0
    ) -> list[EventRow]:
        stmt = (
            select(Event).where(Event.stack_id == stack_id, Event.id > after_id).order_by(Event.id)
        )
        if resource_name is not None:
            stmt = stmt.where(Event.resource_name == resource_name)
        return [freeze(EventRow, row) for row in self._session.scalars(stmt)]

    def first_id(self, stack_id: str) -> int | None:
        """The id of the stack's oldest event still kept (its create's first, until purged)."""
        stmt = select(Event.id).where(Event.stack_id == stack_id).order_by(Event.id).limit(1)
        return self._session.scalars(stmt).first()
