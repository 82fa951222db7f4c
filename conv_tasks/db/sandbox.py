"""The sandbox cloud, kept in PostgreSQL: where test resource types create things.

Creating with a token that was seen before returns the object made the first
time and counts the call, so tests can tell a retried create from a second
resource.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert

from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope


class PostgresSandbox:
    """Implements conv_tasks.resources.Sandbox on the sandbox_object table."""

    def __init__(self, database_url: str | None = None) -> None:
        self._url = database_url

    def create(self, token: str, kind: str, properties: Mapping[str, Any]) -> str:
        with session_scope(self._url) as session:
            stmt = (
                insert(SandboxObject)
                .values(id=str(uuid.uuid4()), token=token, kind=kind, properties=dict(properties))
                .on_conflict_do_update(
                    index_elements=[SandboxObject.token],
                    set_={"create_calls": SandboxObject.create_calls + 1},
                )
                .returning(SandboxObject.id)
            )
            return str(session.execute(stmt).scalar_one())

    def update(self, object_id: str, properties: Mapping[str, Any]) -> None:
        with session_scope(self._url) as session:
            session.execute(
                update(SandboxObject)
                .where(SandboxObject.id == object_id)
                .values(properties=dict(properties))
            )

    def delete(self, object_id: str) -> bool:
        with session_scope(self._url) as session:
            result = session.execute(
                update(SandboxObject)
                .where(SandboxObject.id == object_id, SandboxObject.deleted.is_(False))
                .values(deleted=True)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def get(self, object_id: str) -> Mapping[str, Any] | None:
        with session_scope(self._url) as session:
            row = session.scalars(
                select(SandboxObject).where(
                    SandboxObject.id == object_id, SandboxObject.deleted.is_(False)
                )
            ).one_or_none()
            if row is None:
                return None
            return {"id": row.id, "kind": row.kind, "properties": dict(row.properties)}

    def find(self, token: str) -> str | None:
        with session_scope(self._url) as session:
            found = session.scalars(
                select(SandboxObject.id).where(
                    SandboxObject.token == token, SandboxObject.deleted.is_(False)
                )
            ).one_or_none()
            return None if found is None else str(found)
