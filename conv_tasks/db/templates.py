"""Raw templates: stored once per operation, deleted when no stack refers to them (seed 000)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import delete, exists, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db.models import RawTemplate, Resource, Stack
from conv_tasks.db.rows import TemplateRow
from conv_tasks.db.sealed_columns import open_fields, seal_fields
from conv_tasks.errors import NotFound
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer

_STORED = ("template", "parameters", "files", "environment", "facade")


def _orphaned() -> Any:
    referenced = exists().where(
        or_(Stack.raw_template_id == RawTemplate.id, Stack.prev_raw_template_id == RawTemplate.id)
    )
    # A superseded traversal's template is named by no stack, but its actions still in flight
    # read it: to mask hidden values in the reason they fail with at their deadline. Their
    # versions name it until they end (the partial index ix_resource_in_flight_template).
    in_flight = exists().where(
        Resource.template_id == RawTemplate.id, Resource.status == "IN_PROGRESS"
    )
    return ~referenced & ~in_flight


class Templates:
    """The raw_template rows, in the caller's transaction; their stored columns sealed with
    `sealer` (conv_tasks.db.sealed_columns)."""

    def __init__(self, session: Session, sealer: Sealer = PLAINTEXT) -> None:
        self._loaded: list[RawTemplate] = []
        self._session = session
        self._sealer = sealer

    def add(
        self,
        template: Mapping[str, Any],
        parameters: Mapping[str, Any],
        files: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | None = None,
        facade: Mapping[str, Any] | None = None,
    ) -> TemplateRow:
        """Store a template; `facade` is its parent resource's definition when it is a nested
        stack's (conv_tasks.template.facade), else None."""
        values: dict[str, Any] = {
            "template": dict(template),
            "parameters": dict(parameters),
            "files": dict(files or {}),
            "environment": dict(environment or {}),
            "facade": None if facade is None else dict(facade),
        }
        row = RawTemplate(**seal_fields(self._sealer, "raw_template", values))
        self._session.add(row)
        self._session.flush()
        return TemplateRow(id=row.id, **values)

    def load(self, template_ids: Iterable[int]) -> None:
        """Read these templates in one statement, so that `get` of each in this transaction
        costs no other (a preview of many child stacks)."""
        wanted = sorted(set(template_ids))
        if wanted:
            stmt = select(RawTemplate).where(RawTemplate.id.in_(wanted))
            # Held here: the session's identity map keeps only what something refers to.
            self._loaded.extend(self._session.scalars(stmt))

    def get(self, template_id: int) -> TemplateRow:
        row = self._session.get(RawTemplate, template_id)
        if row is None:
            raise NotFound(f"Template {template_id} not found.")
        stored = {name: getattr(row, name) for name in _STORED}
        return TemplateRow(id=row.id, **open_fields(self._sealer, "raw_template", stored))

    def delete_orphaned(self, *, only: list[int] | None = None) -> int:
        """Delete templates that neither the current nor the previous template of any stack is,
        nor the template of a resource version whose action is in flight.

        The foreign keys on the stack row refuse the delete of a template that a
        concurrent transaction has just started to refer to; then nothing is
        deleted this time and the next run tries again.
        """
        stmt = delete(RawTemplate).where(_orphaned())
        if only is not None:
            stmt = stmt.where(RawTemplate.id.in_(only))
        try:
            with self._session.begin_nested():
                return self._session.execute(stmt).rowcount  # type: ignore[attr-defined]
        except IntegrityError:
            return 0
