"""What the integration tests share: reading the sandbox and resource rows, building templates."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from conv_tasks.db.models import Resource, SandboxObject
from conv_tasks.db.session import session_scope


def sandbox_objects(stack_id: str, *, include_deleted: bool = False) -> list[SandboxObject]:
    """Objects the stack's TestResources made (their tokens start with the stack id)."""
    with session_scope() as session:
        stmt = select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%"))
        if not include_deleted:
            stmt = stmt.where(SandboxObject.deleted.is_(False))
        return list(session.scalars(stmt))


def resource_rows(stack_id: str) -> list[Resource]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(Resource)
                .where(Resource.stack_id == stack_id)
                .order_by(Resource.name, Resource.version)
            )
        )


def test_resource(value: str = "", **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


test_resource.__test__ = False  # type: ignore[attr-defined]


def template(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources, **extra}
