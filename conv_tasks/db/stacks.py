"""Stack rows: create, look up, and swap the traversal by compare-and-swap.

The traversal id on the stack row is the single point of ownership: an
operation owns the stack exactly while `current_traversal` holds its id.
Every operation is named; what it reads comes back as a frozen StackRow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, func, not_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from conv_tasks.db.models import Stack
from conv_tasks.db.rows import NewStack, StackRow, stack_row
from conv_tasks.db.validation import require_fields, require_uuid
from conv_tasks.errors import Duplicate, LostRace, NotFound
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
        "tags",
    }
)


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


class Stacks:
    """The stack rows, in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def _one(self, stmt: Select[Any]) -> StackRow | None:
        row = self._session.scalars(stmt).first()
        return None if row is None else stack_row(row)

    def get(self, stack_id: str, *, tenant: str | None = None) -> StackRow:
        """The live stack with this id (of `tenant`, when given), or NotFound."""
        stmt = select(Stack).where(Stack.id == stack_id, Stack.deleted_at.is_(None))
        if tenant is not None:
            stmt = stmt.where(Stack.tenant == tenant)
        found = self._one(stmt)
        if found is None:
            raise NotFound(f"Stack {stack_id!r} not found.")
        return found

    def get_any(self, stack_id: str, *, lock: bool = False) -> StackRow | None:
        """The stack with this id, deleted or not; `lock`: locked until the transaction ends."""
        stmt = select(Stack).where(Stack.id == stack_id)
        return self._one(stmt.with_for_update() if lock else stmt)

    def get_many(self, stack_ids: Iterable[str]) -> dict[str, StackRow]:
        """The stacks with these ids, deleted or not, in one statement; an id not found is
        left out."""
        wanted = sorted(set(stack_ids))
        if not wanted:
            return {}
        rows = self._session.scalars(select(Stack).where(Stack.id.in_(wanted)))
        return {row.id: stack_row(row) for row in rows}

    def find(self, tenant: str, name_or_id: str) -> StackRow:
        """A live stack of `tenant` by name or id, or NotFound."""
        stmt = select(Stack).where(
            Stack.tenant == tenant,
            Stack.deleted_at.is_(None),
            (Stack.name == name_or_id) | (Stack.id == name_or_id),
        )
        found = self._one(stmt)
        if found is None:
            raise NotFound(f"Stack {name_or_id!r} not found.")
        return found

    def find_any(self, tenant: str, ref: str) -> StackRow:
        """A stack of `tenant` by id even after its deletion (events outlive it), else a live
        one by name or id; NotFound otherwise."""
        found = self.get_any(ref) if len(ref) == 36 else None
        if found is not None and found.tenant == tenant:
            return found
        return self.find(tenant, ref)

    def by_idempotency_key(self, tenant: str, key: str) -> StackRow | None:
        """The stack of `tenant` a create with this idempotency key made, deleted or not."""
        return self._one(select(Stack).where(Stack.tenant == tenant, Stack.idempotency_key == key))

    def made_for(self, parent_stack_id: str, keys: Iterable[str]) -> str | None:
        """The id of the live child of a parent that a create with one of `keys` made."""
        stmt = select(Stack.id).where(
            Stack.parent_stack_id == parent_stack_id,
            Stack.idempotency_key.in_(list(keys)),
            Stack.deleted_at.is_(None),
        )
        return self._session.scalars(stmt).first()

    def add(self, new: NewStack) -> StackRow:
        """A new stack row. Duplicate if the tenant has a live stack of that name, or a stack
        its idempotency key made."""
        values = asdict(new)
        values["tags"] = list(new.tags)
        row = Stack(status_reason="", **values)
        self._session.add(row)
        try:
            self._session.flush()
        except IntegrityError:
            # The transaction is spoilt: the caller's ends with this error, writing nothing.
            raise Duplicate(f"A stack named {new.name!r} already exists.") from None
        return stack_row(row)

    def of_tenant(
        self,
        tenant: str,
        *,
        with_deleted: bool = False,
        show_nested: bool = False,
        tag_filter: TagFilter | None = None,
    ) -> list[StackRow]:
        """The tenant's stacks; nested stacks only when asked for; those `tag_filter` keeps."""
        stmt = select(Stack).where(Stack.tenant == tenant).order_by(Stack.created_at, Stack.name)
        if not with_deleted:
            stmt = stmt.where(Stack.deleted_at.is_(None))
        if not show_nested:
            stmt = stmt.where(Stack.parent_stack_id.is_(None))
        if tag_filter:
            stmt = stmt.where(*_tag_conditions(tag_filter))
        return [stack_row(row) for row in self._session.scalars(stmt)]

    def descendants(
        self, stack: StackRow, depth: int, *, with_deleted: bool = False
    ) -> list[StackRow]:
        """The nested stacks below `stack`, at most `depth` levels down, level by level (one
        query per level)."""
        found: list[StackRow] = []
        level = [stack.id]
        for _ in range(max(0, depth)):
            if not level:
                break
            stmt = select(Stack).where(
                Stack.parent_stack_id.in_(level), Stack.tenant == stack.tenant
            )
            if not with_deleted:
                stmt = stmt.where(Stack.deleted_at.is_(None))
            children = [
                stack_row(row)
                for row in self._session.scalars(stmt.order_by(Stack.created_at, Stack.id))
            ]
            found.extend(children)
            level = [child.id for child in children]
        return found

    def running_operations(self) -> list[RunningOperation]:
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
        return [RunningOperation(*row) for row in self._session.execute(stmt)]

    def swap_traversal(
        self,
        stack_id: str,
        expected: str | None,
        new: str | None,
        *,
        starts_operation: bool = False,
        **fields: Any,
    ) -> bool:
        """Set the stack's traversal to `new` only if it still holds `expected`.

        Other columns in `fields` are written in the same statement. `starts_operation`: the
        operation's start is now, by PostgreSQL's clock (its timeout is measured from it, by
        that clock, whichever worker host's clock runs ahead). Returns whether this
        call won; a loser has written nothing. A write a constraint refuses (the template a
        concurrent collection deleted) raises LostRace: the caller's transaction is spoilt.
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
        if starts_operation:
            stmt = stmt.values(operation_started_at=func.now())
        try:
            return self._session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]
        except IntegrityError:
            raise LostRace(f"Stack {stack_id!r} changed meanwhile; try again.") from None

    def update_if_current(self, stack_id: str, traversal: str, **fields: Any) -> bool:
        """Write `fields` on the stack only while `traversal` is still its current one."""
        require_uuid(traversal, "traversal")
        require_fields(fields, WRITABLE, "a stack")
        stmt = (
            update(Stack)
            .where(Stack.id == stack_id, Stack.current_traversal == traversal)
            .values(updated_at=func.now(), **fields)
            .execution_options(synchronize_session=False)
        )
        return self._session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]

    def answers(self) -> bool:
        """Whether the database answers a trivial query (the health check)."""
        return bool(self._session.execute(text("SELECT 1")).scalar() == 1)


def _tag_conditions(tag_filter: TagFilter) -> Sequence[ColumnElement[bool]]:
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
