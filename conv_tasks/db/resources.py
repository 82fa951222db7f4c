"""Resource versions for stack operations and reads: load them, add them, compare-and-swap.

Every write bumps `atomic_key`, and a write that must not race names the
`atomic_key` it read: whoever read an older one writes nothing. Graph nodes
do not come through here: their leases and writes are in conv_tasks.db.nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from conv_tasks.db.models import Resource
from conv_tasks.db.node_statements import WRITABLE as NODE_WRITABLE
from conv_tasks.db.validation import require_fields, require_id
from conv_tasks.graph import ExistingVersion

WRITABLE = NODE_WRITABLE | {"replaces", "replaced_by"}


def versions(session: Session, stack_id: str) -> Sequence[Resource]:
    """Every version of every resource of the stack, oldest first."""
    stmt = select(Resource).where(Resource.stack_id == stack_id).order_by(Resource.id)
    return session.scalars(stmt).all()


def existing_versions(session: Session, stack_id: str) -> list[ExistingVersion]:
    """Every version of every resource of the stack, as the traversal planner reads them."""
    stmt = select(
        Resource.id, Resource.name, Resource.version, Resource.requires, Resource.replaced_by
    ).where(Resource.stack_id == stack_id)
    return [
        ExistingVersion(
            id=row_id,
            name=name,
            version=version,
            requires=frozenset(requires or ()),
            is_head=replaced_by is None,
        )
        for row_id, name, version, requires, replaced_by in session.execute(stmt)
    ]


def head_of(session: Session, stack_id: str, name: str) -> Resource | None:
    """The newest version of one resource that nothing replaced, or None."""
    stmt = (
        select(Resource)
        .where(Resource.stack_id == stack_id, Resource.name == name, Resource.replaced_by.is_(None))
        .order_by(Resource.version.desc())
        .limit(1)
    )
    return session.scalars(stmt).first()


def add_versions(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert many new resource versions in one batched statement."""
    if rows:
        session.execute(insert(Resource), list(rows))


def compare_and_swap(session: Session, resource_id: int, atomic_key: int, **fields: Any) -> bool:
    """Write `fields` only if the version still has `atomic_key` (nobody wrote since we read)."""
    require_id(resource_id, "resource_id")
    if isinstance(atomic_key, bool) or not isinstance(atomic_key, int):
        require_id(atomic_key, "atomic_key")
    require_fields(fields, WRITABLE, "a resource")
    stmt = (
        update(Resource)
        .where(Resource.id == resource_id, Resource.atomic_key == atomic_key)
        .values(atomic_key=Resource.atomic_key + 1, updated_at=func.now(), **fields)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]


def interrupt_actions(session: Session, stack_id: str, traversal: str, reason: str) -> int:
    """Ask every create or update that `traversal` has under way on the stack to stop (a
    cancel, a stack delete); each stops on its next poll. Returns how many were asked."""
    result = session.execute(
        update(Resource)
        .where(
            Resource.stack_id == stack_id,
            Resource.lock_holder == traversal,
            Resource.status == "IN_PROGRESS",
            Resource.action.in_(("CREATE", "UPDATE")),
        )
        .values(interrupt_reason=reason)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
