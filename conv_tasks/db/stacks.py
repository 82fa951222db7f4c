"""Stack rows: create, look up, and swap the traversal by compare-and-swap.

The traversal id on the stack row is the single point of ownership: an
operation owns the stack exactly while `current_traversal` holds its id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, not_, select, text, update
from sqlalchemy.orm import Session

from conv_tasks.db.models import Stack
from conv_tasks.db.validation import require_fields, require_uuid
from conv_tasks.errors import NotFound
from conv_tasks.tags import TagFilter

WRITABLE = frozenset(
    {
        "action",
        "status",
        "status_reason",
        "raw_template_id",
        "prev_raw_template_id",
        "current_graph",
        "disable_rollback",
        "timeout_mins",
        "operation_started_at",
        "deleted_at",
    }
)


def get_stack(session: Session, stack_id: str, *, tenant: str | None = None) -> Stack:
    """The live stack with this id (of this tenant, when given), or NotFound."""
    stmt = select(Stack).where(Stack.id == stack_id, Stack.deleted_at.is_(None))
    if tenant is not None:
        stmt = stmt.where(Stack.tenant == tenant)
    stack = session.scalars(stmt).one_or_none()
    if stack is None:
        raise NotFound(f"Stack {stack_id!r} not found.")
    return stack


def find_stack(session: Session, tenant: str, name_or_id: str) -> Stack:
    """A live stack of `tenant` by name or id, or NotFound."""
    stmt = select(Stack).where(
        Stack.tenant == tenant,
        Stack.deleted_at.is_(None),
        (Stack.name == name_or_id) | (Stack.id == name_or_id),
    )
    stack = session.scalars(stmt).first()
    if stack is None:
        raise NotFound(f"Stack {name_or_id!r} not found.")
    return stack


def find_by_idempotency_key(session: Session, tenant: str, key: str) -> Stack | None:
    """The stack of `tenant` a create with this idempotency key made, deleted or not."""
    stmt = select(Stack).where(Stack.tenant == tenant, Stack.idempotency_key == key)
    return session.scalars(stmt).one_or_none()


def find_any(session: Session, tenant: str, ref: str) -> Stack:
    """A stack of `tenant` by id even after its deletion (events outlive it), else a live one
    by name or id; NotFound otherwise."""
    stack = session.get(Stack, ref) if len(ref) == 36 else None
    if stack is not None and stack.tenant == tenant:
        return stack
    return find_stack(session, tenant, ref)


@dataclass(frozen=True)
class RunningOperation:
    """What the watchdog reads of a stack whose operation is in progress."""

    stack_id: str
    traversal: str | None
    updated_at: datetime
    action: str
    timeout_mins: int | None
    started_at: datetime | None
    disable_rollback: bool


def running_operations(session: Session) -> list[RunningOperation]:
    """Every live stack with an operation in progress."""
    stmt = select(
        Stack.id,
        Stack.current_traversal,
        Stack.updated_at,
        Stack.action,
        Stack.timeout_mins,
        Stack.operation_started_at,
        Stack.disable_rollback,
    ).where(Stack.status == "IN_PROGRESS", Stack.deleted_at.is_(None))
    return [RunningOperation(*row) for row in session.execute(stmt)]


def database_answers(session: Session) -> bool:
    """Whether the database answers a trivial query (the health check)."""
    return bool(session.execute(text("SELECT 1")).scalar() == 1)


def list_stacks(
    session: Session,
    tenant: str,
    *,
    with_deleted: bool = False,
    show_nested: bool = False,
    tag_filter: TagFilter | None = None,
) -> Sequence[Stack]:
    """The tenant's stacks; nested stacks only when asked for; those `tag_filter` keeps."""
    stmt = select(Stack).where(Stack.tenant == tenant).order_by(Stack.created_at, Stack.name)
    if not with_deleted:
        stmt = stmt.where(Stack.deleted_at.is_(None))
    if not show_nested:
        stmt = stmt.where(Stack.parent_stack_id.is_(None))
    if tag_filter:
        stmt = stmt.where(*_tag_conditions(tag_filter))
    return session.scalars(stmt).all()


def _tag_conditions(tag_filter: TagFilter) -> list[ColumnElement[bool]]:
    """TagFilter.matches as SQL: @> (has all of) and && (has any of) on the tags array."""
    tags = Stack.tags
    conditions: list[ColumnElement[bool]] = []
    if tag_filter.all_of:
        conditions.append(tags.contains(list(tag_filter.all_of)))
    if tag_filter.any_of:
        conditions.append(tags.overlap(list(tag_filter.any_of)))
    if tag_filter.not_all_of:
        conditions.append(not_(tags.contains(list(tag_filter.not_all_of))))
    if tag_filter.none_of:
        conditions.append(not_(tags.overlap(list(tag_filter.none_of))))
    return conditions


def descendants(
    session: Session, stack: Stack, depth: int, *, with_deleted: bool = False
) -> list[Stack]:
    """The nested stacks below `stack`, at most `depth` levels down, level by level (one
    query per level)."""
    found: list[Stack] = []
    level = [stack.id]
    for _ in range(max(0, depth)):
        if not level:
            break
        stmt = select(Stack).where(Stack.parent_stack_id.in_(level), Stack.tenant == stack.tenant)
        if not with_deleted:
            stmt = stmt.where(Stack.deleted_at.is_(None))
        children = list(session.scalars(stmt.order_by(Stack.created_at, Stack.id)))
        found.extend(children)
        level = [child.id for child in children]
    return found


def swap_traversal(
    session: Session, stack_id: str, expected: str | None, new: str | None, **fields: Any
) -> bool:
    """Set the stack's traversal to `new` only if it still holds `expected`.

    Other columns in `fields` are written in the same statement. Returns
    whether this call won; a loser has written nothing.
    """
    require_uuid(stack_id, "stack_id")
    if expected is not None:
        require_uuid(expected, "expected traversal")
    if new is not None:
        require_uuid(new, "new traversal")
    require_fields(fields, WRITABLE, "a stack")
    stmt = (
        update(Stack)
        .where(
            Stack.id == stack_id,
            Stack.current_traversal.is_not_distinct_from(expected),
        )
        .values(current_traversal=new, updated_at=func.now(), **fields)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]


def update_if_current(session: Session, stack_id: str, traversal: str, **fields: Any) -> bool:
    """Write `fields` on the stack only while `traversal` is still its current one."""
    require_uuid(traversal, "traversal")
    require_fields(fields, WRITABLE, "a stack")
    stmt = (
        update(Stack)
        .where(Stack.id == stack_id, Stack.current_traversal == traversal)
        .values(updated_at=func.now(), **fields)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]
