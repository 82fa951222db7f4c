"""Resource versions for stack operations and reads: load them, add them, compare-and-swap.

Every write bumps `atomic_key`, and a write that must not race names the
`atomic_key` it read: whoever read an older one writes nothing. Graph nodes
do not come through here: their leases and writes are in conv_tasks.db.nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db.models import Resource
from conv_tasks.db.node_statements import WRITABLE as NODE_WRITABLE
from conv_tasks.db.rows import ResourceRow, resource_row
from conv_tasks.db.sealed_columns import seal_fields
from conv_tasks.db.validation import require_fields, require_id
from conv_tasks.errors import Duplicate
from conv_tasks.graph import ExistingVersion
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer

WRITABLE = NODE_WRITABLE | {"replaces", "replaced_by"}


class ResourceVersions:
    """The resource version rows of stacks, in the caller's transaction."""

    def __init__(self, session: Session, sealer: Sealer = PLAINTEXT) -> None:
        self._session = session
        self._sealer = sealer

    def of_stack(self, stack_id: str) -> list[ResourceRow]:
        """Every version of every resource of the stack, oldest first."""
        stmt = select(Resource).where(Resource.stack_id == stack_id).order_by(Resource.id)
        return [resource_row(row, self._sealer) for row in self._session.scalars(stmt)]

    def existing(self, stack_id: str) -> list[ExistingVersion]:
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
            for row_id, name, version, requires, replaced_by in self._session.execute(stmt)
        ]

    def head(self, stack_id: str, name: str) -> ResourceRow | None:
        """The newest version of one resource that nothing replaced, or None."""
        stmt = (
            select(Resource)
            .where(
                Resource.stack_id == stack_id,
                Resource.name == name,
                Resource.replaced_by.is_(None),
            )
            .order_by(Resource.version.desc())
            .limit(1)
        )
        row = self._session.scalars(stmt).first()
        return None if row is None else resource_row(row, self._sealer)

    def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert many new resource versions in one batched statement. Duplicate if another
        operation added one of them first (the caller's transaction is spoilt)."""
        if not rows:
            return
        try:
            self._session.execute(
                insert(Resource), [seal_fields(self._sealer, "resource", row) for row in rows]
            )
        except IntegrityError:
            raise Duplicate("Another operation added these resource versions first.") from None

    def compare_and_swap(self, resource_id: int, atomic_key: int, **fields: Any) -> bool:
        """Write `fields` only if the version still has `atomic_key` (nobody wrote since we
        read)."""
        require_id(resource_id, "resource_id")
        if isinstance(atomic_key, bool) or not isinstance(atomic_key, int):
            require_id(atomic_key, "atomic_key")
        require_fields(fields, WRITABLE, "a resource")
        stmt = (
            update(Resource)
            .where(Resource.id == resource_id, Resource.atomic_key == atomic_key)
            .values(
                atomic_key=Resource.atomic_key + 1,
                updated_at=func.now(),
                **seal_fields(self._sealer, "resource", fields),
            )
            .execution_options(synchronize_session=False)
        )
        return self._session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]

    def interrupt_actions(self, stack_id: str, traversal: str, reason: str) -> int:
        """Ask every create or update that `traversal` has under way on the stack to stop (a
        cancel, a stack delete); each stops on its next poll. Returns how many were asked."""
        result = self._session.execute(
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
