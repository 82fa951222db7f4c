"""Stacks of every age for retention tests, written straight into the real database.

Rows are dated in days before now, so that a test can put them on either side of a
retention. Beat's purge in the same test session runs with the default retention (30
days): rows these tests expect to purge themselves are younger than that.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select

from conv_tasks.db.models import Event, RawTemplate, Resource, Stack, StackOperation
from conv_tasks.db.session import session_scope


def ago(days: float) -> datetime:
    return datetime.now(UTC) - timedelta(days=days)


class World:
    """The stacks, events and templates one test made, under a tenant of its own."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.tenant = f"retention-{uuid.uuid4().hex[:8]}"
        self.templates: list[int] = []

    def template(self, *, days: float = 0) -> int:
        with session_scope(self.url) as session:
            return self._template(session, days)

    def _template(self, session: Any, days: float) -> int:
        row = RawTemplate(template={"heat_template_version": "2018-08-31"}, parameters={})
        row.created_at = ago(days)
        session.add(row)
        session.flush()
        self.templates.append(row.id)
        return row.id

    def stack(
        self,
        name: str,
        *,
        created_days: float = 0,
        deleted_days: float | None = None,
        status: str = "COMPLETE",
        resources: int = 0,
    ) -> str:
        """A stack; deleted `deleted_days` ago (DELETE_COMPLETE, no template) when given."""
        stack_id = str(uuid.uuid4())
        with session_scope(self.url) as session:
            # In the stack's own transaction: beat's collector deletes a template no stack
            # refers to, and would take one made in a transaction of its own first.
            template_id = (
                None if deleted_days is not None else self._template(session, created_days)
            )
            session.add(
                Stack(
                    id=stack_id,
                    name=name,
                    tenant=self.tenant,
                    action="DELETE" if deleted_days is not None else "CREATE",
                    status=status,
                    raw_template_id=template_id,
                    created_at=ago(created_days),
                    updated_at=ago(deleted_days or 0),
                    deleted_at=None if deleted_days is None else ago(deleted_days),
                )
            )
            session.flush()
            for number in range(resources):
                session.add(Resource(stack_id=stack_id, name=f"r{number}", type="OS::Heat::None"))
        return stack_id

    def events(self, stack_id: str, count: int, *, days: float) -> list[int]:
        """`count` events of the stack, `days` old, in id order."""
        with session_scope(self.url) as session:
            rows = [
                Event(
                    stack_id=stack_id,
                    resource_name=f"r{number}",
                    action="CREATE",
                    status="COMPLETE",
                    created_at=ago(days),
                )
                for number in range(count)
            ]
            session.add_all(rows)
            session.flush()
            return [row.id for row in rows]

    def operations(self, stack_id: str, count: int) -> None:
        """`count` finished operations of the stack (its history)."""
        with session_scope(self.url) as session:
            session.add_all(
                StackOperation(
                    stack_id=stack_id,
                    tenant=self.tenant,
                    traversal=str(uuid.uuid4()),
                    action="UPDATE",
                    result="COMPLETE",
                )
                for _ in range(count)
            )

    def operation_count(self, stack_id: str) -> int:
        with session_scope(self.url) as session:
            stmt = select(func.count()).select_from(StackOperation)
            return int(session.scalar(stmt.where(StackOperation.stack_id == stack_id)) or 0)

    def event_ids(self, stack_id: str) -> list[int]:
        with session_scope(self.url) as session:
            return list(
                session.scalars(
                    select(Event.id).where(Event.stack_id == stack_id).order_by(Event.id)
                )
            )

    def resource_count(self, stack_id: str) -> int:
        with session_scope(self.url) as session:
            return int(
                session.scalar(
                    select(func.count()).select_from(Resource).where(Resource.stack_id == stack_id)
                )
                or 0
            )

    def stack_exists(self, stack_id: str) -> bool:
        with session_scope(self.url) as session:
            return session.get(Stack, stack_id) is not None

    def template_exists(self, template_id: int) -> bool:
        with session_scope(self.url) as session:
            return session.get(RawTemplate, template_id) is not None

    def remove(self) -> None:
        with session_scope(self.url) as session:
            session.execute(delete(Stack).where(Stack.tenant == self.tenant))
            session.execute(delete(RawTemplate).where(RawTemplate.id.in_(self.templates)))


@contextmanager
def world(url: str) -> Iterator[World]:
    made = World(url)
    try:
        yield made
    finally:
        made.remove()
