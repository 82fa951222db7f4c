"""The stand-in for conv_tasks.db.stacks.Stacks: the stack rows, in the caller's transaction.

Same operations, arguments, frozen rows and errors; the compare-and-swap on
`current_traversal` is the real one's (a loser writes nothing), and a write that a foreign
key refuses raises LostRace and spoils the transaction, as the IntegrityError does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any

from conv_tasks.db import NewStack, RunningOperation, StackRow
from conv_tasks.db.rows import stack_row
from conv_tasks.db.stacks import WRITABLE
from conv_tasks.db.validation import require_fields, require_uuid
from conv_tasks.errors import Duplicate, LostRace, NotFound
from conv_tasks.tags import TagFilter

from .schema import Row
from .tables import Violation, Work, columns_of

_OPTIONS = frozenset({"disable_rollback", "timeout_mins", "tags"})


def _frozen(row: Row) -> StackRow:
    return stack_row(columns_of(row))


def _live(row: Row) -> bool:
    return row["deleted_at"] is None


class Stacks:
    def __init__(self, work: Work) -> None:
        self._work = work

    def _rows(self, statement: str, keep: Callable[[Row], bool]) -> list[Row]:
        self._work.statement(f"stacks.{statement}")
        return [row for row in self._work.rows("stack") if keep(row)]

    def _first(self, statement: str, keep: Callable[[Row], bool]) -> StackRow | None:
        found = self._rows(statement, keep)
        return _frozen(found[0]) if found else None

    def get(self, stack_id: str, *, tenant: str | None = None) -> StackRow:
        found = self._first(
            "get",
            lambda r: r["id"] == stack_id and _live(r) and tenant in (None, r["tenant"]),
        )
        if found is None:
            raise NotFound(f"Stack {stack_id!r} not found.")
        return found

    def get_any(self, stack_id: str, *, lock: bool = False) -> StackRow | None:
        # One test thread at a time: a row lock has nothing to wait for.
        return self._first("get_any", lambda r: r["id"] == stack_id)

    def find(self, tenant: str, name_or_id: str) -> StackRow:
        found = self._first(
            "find",
            lambda r: r["tenant"] == tenant and _live(r) and name_or_id in (r["name"], r["id"]),
        )
        if found is None:
            raise NotFound(f"Stack {name_or_id!r} not found.")
        return found

    def find_any(self, tenant: str, ref: str) -> StackRow:
        found = self.get_any(ref) if len(ref) == 36 else None
        if found is not None and found.tenant == tenant:
            return found
        return self.find(tenant, ref)

    def by_idempotency_key(self, tenant: str, key: str) -> StackRow | None:
        return self._first(
            "by_idempotency_key", lambda r: r["tenant"] == tenant and r["idempotency_key"] == key
        )

    def made_for(self, parent_stack_id: str, keys: Iterable[str]) -> str | None:
        wanted = set(keys)
        found = self._rows(
            "made_for",
            lambda r: (
                r["parent_stack_id"] == parent_stack_id
                and r["idempotency_key"] in wanted
                and _live(r)
            ),
        )
        return found[0]["id"] if found else None

    def add(self, new: NewStack) -> StackRow:
        self._work.statement("stacks.add")
        values = asdict(new)
        values["tags"] = list(new.tags)
        try:
            row = self._work.insert("stack", {"status_reason": "", **values})
        except Violation:
            raise Duplicate(f"A stack named {new.name!r} already exists.") from None
        return _frozen(row)

    def of_tenant(
        self,
        tenant: str,
        *,
        with_deleted: bool = False,
        show_nested: bool = False,
        tag_filter: TagFilter | None = None,
    ) -> list[StackRow]:
        found = self._rows(
            "of_tenant",
            lambda r: (
                r["tenant"] == tenant
                and (with_deleted or _live(r))
                and (show_nested or r["parent_stack_id"] is None)
                and (not tag_filter or tag_filter.matches(r["tags"]))
            ),
        )
        found.sort(key=lambda r: (r["created_at"], r["name"]))
        return [_frozen(row) for row in found]

    def descendants(
        self, stack: StackRow, depth: int, *, with_deleted: bool = False
    ) -> list[StackRow]:
        found: list[StackRow] = []
        level = {stack.id}
        for _ in range(max(0, depth)):
            if not level:
                break
            children = self._rows(
                "descendants",
                lambda r, parents=frozenset(level): (
                    r["parent_stack_id"] in parents
                    and r["tenant"] == stack.tenant
                    and (with_deleted or _live(r))
                ),
            )
            children.sort(key=lambda r: (r["created_at"], r["id"]))
            found.extend(_frozen(row) for row in children)
            level = {row["id"] for row in children}
        return found

    def running_operations(self) -> list[RunningOperation]:
        found = self._rows("running_operations", lambda r: r["status"] == "IN_PROGRESS")
        return [
            RunningOperation(
                r["id"],
                r["current_traversal"],
                r["updated_at"],
                r["action"],
                r["timeout_mins"],
                r["operation_started_at"],
                r["disable_rollback"],
            )
            for r in found
            if _live(r)
        ]

    def set_options(self, stack_id: str, **fields: Any) -> None:
        require_uuid(stack_id, "stack_id")
        require_fields(fields, _OPTIONS, "a stack's options")
        if fields:
            for row in self._rows("set_options", lambda r: r["id"] == stack_id):
                self._work.update("stack", row["id"], **fields)

    def swap_traversal(
        self,
        stack_id: str,
        expected: str | None,
        new: str | None,
        *,
        starts_operation: bool = False,
        **fields: Any,
    ) -> bool:
        require_uuid(stack_id, "stack_id")
        if expected is not None:
            require_uuid(expected, "expected traversal")
        if new is not None:
            require_uuid(new, "new traversal")
        require_fields(fields, WRITABLE, "a stack")
        if starts_operation:
            fields = {**fields, "operation_started_at": self._work.now}
        found = self._rows(
            "swap_traversal",
            lambda r: r["id"] == stack_id and r["current_traversal"] == expected,
        )
        try:
            for row in found:
                self._work.update(
                    "stack", row["id"], current_traversal=new, updated_at=self._work.now, **fields
                )
        except Violation:
            raise LostRace(f"Stack {stack_id!r} changed meanwhile; try again.") from None
        return len(found) == 1

    def update_if_current(self, stack_id: str, traversal: str, **fields: Any) -> bool:
        require_uuid(traversal, "traversal")
        require_fields(fields, WRITABLE, "a stack")
        found = self._rows(
            "update_if_current",
            lambda r: r["id"] == stack_id and r["current_traversal"] == traversal,
        )
        for row in found:
            # A Violation here goes up as it is: the real statement lets IntegrityError out.
            self._work.update("stack", row["id"], updated_at=self._work.now, **fields)
        return len(found) == 1

    def answers(self) -> bool:
        self._work.statement("stacks.answers")
        return True
