"""Events: what happened to a stack and its resources, in order, for the user."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from conv_tasks.db.models import Event


@dataclass(frozen=True)
class EventRecord:
    stack_id: str
    action: str
    status: str
    reason: str = ""
    resource_name: str | None = None
    physical_id: str | None = None
    traversal: str | None = None


def add_events(session: Session, records: Iterable[EventRecord]) -> list[int]:
    """Insert events; returns their ids, in order."""
    rows = [record.__dict__ for record in records]
    if not rows:
        return []
    return list(
        session.scalars(insert(Event).returning(Event.id, sort_by_parameter_order=True), rows)
    )


def list_events(
    session: Session, stack_id: str, *, resource_name: str | None = None, after_id: int = 0
) -> Sequence[Event]:
    stmt = select(Event).where(Event.stack_id == stack_id, Event.id > after_id).order_by(Event.id)
    if resource_name is not None:
        stmt = stmt.where(Event.resource_name == resource_name)
    return session.scalars(stmt).all()


def first_event_id(session: Session, stack_id: str) -> int | None:
    """The id of the stack's oldest event still kept (its create's first, until purged)."""
    stmt = select(Event.id).where(Event.stack_id == stack_id).order_by(Event.id).limit(1)
    return session.scalars(stmt).first()
