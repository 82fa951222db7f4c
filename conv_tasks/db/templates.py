"""Raw templates: stored once per operation, deleted when no stack refers to them (seed 000)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, exists, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db.models import RawTemplate, Stack
from conv_tasks.errors import NotFound


def add_template(
    session: Session,
    template: dict[str, Any],
    parameters: dict[str, Any],
    files: dict[str, Any] | None = None,
    environment: dict[str, Any] | None = None,
    facade: dict[str, Any] | None = None,
) -> RawTemplate:
    """Store a template; `facade` is its parent resource's definition when it is a nested
    stack's (conv_tasks.template.facade), else None."""
    row = RawTemplate(
        template=template,
        parameters=parameters,
        files=files or {},
        environment=environment or {},
        facade=facade,
    )
    session.add(row)
    session.flush()
    return row


def get_template(session: Session, template_id: int) -> RawTemplate:
    row = session.get(RawTemplate, template_id)
    if row is None:
        raise NotFound(f"Template {template_id} not found.")
    return row


def _orphaned() -> Any:
    referenced = exists().where(
        or_(Stack.raw_template_id == RawTemplate.id, Stack.prev_raw_template_id == RawTemplate.id)
    )
    return ~referenced


def orphaned_template_ids(session: Session) -> list[int]:
    return list(session.scalars(select(RawTemplate.id).where(_orphaned()).order_by(RawTemplate.id)))


def delete_orphaned_templates(session: Session, *, only: list[int] | None = None) -> int:
    """Delete templates that neither the current nor the previous template of any stack is.

    The foreign keys on the stack row refuse the delete of a template that a
    concurrent transaction has just started to refer to; then nothing is
    deleted this time and the next run tries again.
    """
    stmt = delete(RawTemplate).where(_orphaned())
    if only is not None:
        stmt = stmt.where(RawTemplate.id.in_(only))
    try:
        with session.begin_nested():
            return session.execute(stmt).rowcount  # type: ignore[attr-defined]
    except IntegrityError:
        return 0
