"""What the integration tests share: reading the sandbox and resource rows, building templates."""

from __future__ import annotations

from typing import Any

from sealed_rows import opened
from sqlalchemy import select

from conv_tasks.db.models import Event, Resource, SandboxObject
from conv_tasks.db.sealed_columns import sealed
from conv_tasks.db.session import session_scope
from conv_tasks.engine import (
    ChangeRequest,
    EngineEnv,
    NewStackRequest,
    OperationResult,
    TenantStacks,
)


def sandbox_objects(stack_id: str, *, include_deleted: bool = False) -> list[SandboxObject]:
    """Objects the stack's TestResources made (their tokens start with the stack id)."""
    with session_scope() as session:
        stmt = select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%"))
        if not include_deleted:
            stmt = stmt.where(SandboxObject.deleted.is_(False))
        return list(session.scalars(stmt))


def resource_rows(stack_id: str) -> list[Resource]:
    """The stack's resource rows, detached, their sealed columns opened."""
    with session_scope() as session:
        rows = list(
            session.scalars(
                select(Resource)
                .where(Resource.stack_id == stack_id)
                .order_by(Resource.name, Resource.version)
            )
        )
        session.expunge_all()
    for row in rows:
        for column in sealed("resource"):
            setattr(row, column, opened("resource", column, getattr(row, column)))
    return rows


def test_resource(value: str = "", **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


test_resource.__test__ = False  # type: ignore[attr-defined]


def template(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources, **extra}


# ------------------------------------------------------------ the engine, driven in this process


def create_stack(
    env: EngineEnv,
    *,
    tenant: str,
    name: str,
    template: Any,
    parameters: dict[str, Any] | None = None,
    **options: Any,
) -> str:
    """Start creating a stack as the tenant's create task would; its id."""
    request = NewStackRequest(name=name, template=template, parameters=parameters or {}, **options)
    return TenantStacks(env, tenant).create(request).stack_id


def update_stack(
    env: EngineEnv,
    *,
    tenant: str,
    stack_ref: str,
    template: Any,
    parameters: dict[str, Any] | None = None,
) -> OperationResult:
    """Start an update as the tenant's update task would."""
    return TenantStacks(env, tenant).update(stack_ref, ChangeRequest(template, parameters or {}))


def delete_stack(env: EngineEnv, *, tenant: str, stack_ref: str) -> OperationResult:
    return TenantStacks(env, tenant).delete(stack_ref)


def check_stack(env: EngineEnv, *, tenant: str, stack_ref: str) -> OperationResult:
    return TenantStacks(env, tenant).check(stack_ref)


def stack_events(stack_id: str) -> list[tuple[str | None, str, str]]:
    """(resource, action, status) of every event of the stack, in order."""
    with session_scope() as session:
        rows = session.scalars(select(Event).where(Event.stack_id == stack_id).order_by(Event.id))
        return [(e.resource_name, e.action, e.status) for e in rows]
