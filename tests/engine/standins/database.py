"""The stand-in for conv_tasks.db.Database: transactions of repositories, node stores.

A transaction commits when its block ends and rolls back when the block raises; a node
store runs each operation as one autocommit statement. Both keep their rows in memory,
stamped by the test's clock. Beside what the engine calls, the stand-in offers what a
test would otherwise ask PostgreSQL with SQL: the rows of a stack, and `before`, which
runs another transaction just before a named statement (a concurrent request).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from conv_tasks.db import EventRow, OperationRow, ResourceRow, StackRow
from conv_tasks.db.rows import freeze, operation_row, resource_row, stack_row

from .clock import StandinClock
from .nodes import StandinNodeStore
from .operations import Operations
from .purges import Purges
from .records import DeploymentRecords, HandleRecords
from .repositories import Events, ResourceVersions, Templates
from .schema import Row
from .stacks import Stacks
from .tables import Tables, Work, columns_of


class StandinTransaction:
    """The repositories of one transaction, as conv_tasks.db.Transaction has them."""

    def __init__(self, work: Work) -> None:
        self.stacks = Stacks(work)
        self.templates = Templates(work)
        self.resources = ResourceVersions(work)
        self.events = Events(work)
        self.deployments = DeploymentRecords(work)
        self.handles = HandleRecords(work)
        self.purges = Purges(work)
        self.operations = Operations(work)


class StandinDatabase:
    """An in-memory database with the schema's constraints, on `clock`."""

    def __init__(self, clock: StandinClock) -> None:
        self.clock = clock
        self._tables = Tables()

    @contextmanager
    def work(self) -> Iterator[Work]:
        """One unit of work: committed if the block ends, forgotten if it raises."""
        work = Work(self._tables, self.clock.now())
        yield work
        work.commit()

    @contextmanager
    def transaction(self) -> Iterator[StandinTransaction]:
        with self.work() as work:
            yield StandinTransaction(work)

    def answers(self) -> bool:
        with self.transaction() as tx:
            return tx.stacks.answers()

    @contextmanager
    def node_store(
        self,
        *,
        stack_id: str,
        traversal: str,
        template_id: int,
        nonce: str,
        continues: str | None = None,
    ) -> Iterator[StandinNodeStore]:
        yield StandinNodeStore(
            self.work,
            stack_id=stack_id,
            traversal=traversal,
            template_id=template_id,
            nonce=nonce,
            continues=continues,
        )

    # ------------------------------------------------------------ for tests

    def before(self, statement: str, action: Callable[[], None]) -> None:
        """Run `action` once, just before the next statement named `statement`
        ("stacks.swap_traversal", "nodes.claim", …) begins."""
        self._tables.hooks.add(statement, action)

    def snapshot(self) -> dict[str, dict[Any, Row]]:
        """Every committed row of every table: equal before and after, nothing was written."""
        return {table: dict(rows) for table, rows in self._tables.rows.items()}

    def _select(self, table: str, **equal: Any) -> list[Row]:
        rows = self._tables.rows[table].values()
        return [dict(r) for r in rows if all(r[k] == v for k, v in equal.items())]

    def stack(self, stack_id: str) -> StackRow:
        """The stack's row, deleted or not (KeyError if there is none)."""
        [row] = self._select("stack", id=stack_id)
        return stack_row(columns_of(row))

    def stacks(self) -> list[StackRow]:
        return [stack_row(columns_of(row)) for row in self._select("stack")]

    def resources(self, stack_id: str) -> list[ResourceRow]:
        """Every version of every resource of the stack, by id."""
        rows = sorted(self._select("resource", stack_id=stack_id), key=lambda r: r["id"])
        return [resource_row(columns_of(row)) for row in rows]

    def leases(self, stack_id: str) -> dict[int, tuple[str | None, str | None]]:
        """Each version's lease nonce and waiter, by id (columns no frozen row shows)."""
        rows = self._select("resource", stack_id=stack_id)
        return {r["id"]: (r["lock_nonce"], r["waiter"]) for r in rows}

    def operations(self, stack_id: str) -> list[OperationRow]:
        """The stack's operation rows (its history), newest first."""
        rows = sorted(self._select("stack_operation", stack_id=stack_id), key=lambda r: -r["id"])
        return [operation_row(columns_of(row)) for row in rows]

    def events(self, stack_id: str) -> list[EventRow]:
        rows = sorted(self._select("event", stack_id=stack_id), key=lambda r: r["id"])
        return [freeze(EventRow, columns_of(row)) for row in rows]

    def template_ids(self) -> set[int]:
        return set(self._tables.rows["raw_template"])

    def sandbox_objects(self) -> list[Row]:
        return self._select("sandbox_object")

    def date_back(self, stack_id: str, seconds: float) -> None:
        """Date the stack's operation back by `seconds`: its start and last write (a test's
        UPDATE of the row)."""
        with self.work() as work:
            row = work.get("stack", stack_id)
            assert row is not None, f"no stack {stack_id}"
            back = timedelta(seconds=seconds)
            started = row["operation_started_at"]
            work.update(
                "stack",
                stack_id,
                updated_at=row["updated_at"] - back,
                operation_started_at=None if started is None else started - back,
            )
