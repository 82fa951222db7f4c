"""The stand-in database's tables, and the unit of work every statement runs in.

Rows are plain dicts of their columns (those of conv_tasks.db.models), never changed in
place: a write puts a new dict. A Work sees the committed rows with its own writes laid
over them, as a transaction sees its own changes and whatever others committed before
each statement. It keeps the constraints the real schema has (NOT NULL, unique keys,
partial unique indexes, foreign keys with their ON DELETE), and commits all its writes at
once or none. A broken constraint spoils the work as it spoils a PostgreSQL transaction:
every later statement fails, and so does the commit. JSON columns hold what jsonb hands
back: the value through JSON, its keys in jsonb's order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from .schema import NOW, REQUIRED, SCHEMA, Row, key_of


class Violation(Exception):
    """A constraint refused a write (PostgreSQL's IntegrityError)."""


class AbortedTransaction(Exception):
    """A statement or a commit after a constraint was broken in the same transaction."""


def as_jsonb(value: Any) -> Any:
    """`value` as a jsonb column hands it back: through JSON, object keys shortest first,
    then bytewise (which is how jsonb stores them)."""
    return _jsonb_order(json.loads(json.dumps(value, allow_nan=False)))


def _jsonb_order(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))
        return {k: _jsonb_order(value[k]) for k in keys}
    if isinstance(value, list):
        return [_jsonb_order(item) for item in value]
    return value


class Hooks:
    """What a test has run just before a named statement, once (another transaction that
    commits in between, as a concurrent request would)."""

    def __init__(self) -> None:
        self._waiting: dict[str, list[Callable[[], None]]] = {}

    def add(self, statement: str, action: Callable[[], None]) -> None:
        self._waiting.setdefault(statement, []).append(action)

    def run(self, statement: str) -> None:
        for action in self._waiting.pop(statement, []):
            action()


class Tables:
    """The committed rows of every table, and the tables' sequences."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[Any, Row]] = {name: {} for name in SCHEMA}
        self._sequences: dict[str, int] = dict.fromkeys(SCHEMA, 0)
        self.hooks = Hooks()

    def next_id(self, table: str) -> int:
        # A sequence is not transactional: an id taken by work that rolls back stays used.
        self._sequences[table] += 1
        return self._sequences[table]


class Work:
    """The writes of one transaction (or of one autocommit statement), over the committed
    rows."""

    def __init__(self, tables: Tables, now: datetime) -> None:
        self._tables = tables
        self.now = now
        self._written: dict[str, dict[Any, Row | None]] = {name: {} for name in SCHEMA}
        self._spoilt: str | None = None

    def statement(self, name: str) -> None:
        """A statement begins: refused in a spoilt transaction; a test's hook runs first."""
        if self._spoilt is not None:
            raise AbortedTransaction(
                f"{name}: the transaction is aborted ({self._spoilt}); it can only roll back."
            )
        self._tables.hooks.run(name)

    # ------------------------------------------------------------ reading

    def _merged(self, table: str) -> dict[Any, Row]:
        merged: dict[Any, Row | None] = {**self._tables.rows[table], **self._written[table]}
        return {key: row for key, row in merged.items() if row is not None}

    def rows(self, table: str) -> list[Row]:
        """Every row of the table as this work sees it (copies)."""
        return [dict(row) for row in self._merged(table).values()]

    def get(self, table: str, key: Any) -> Row | None:
        found = self._merged(table).get(key)
        return None if found is None else dict(found)

    # ------------------------------------------------------------ writing

    def insert(self, table: str, values: Mapping[str, Any]) -> Row:
        spec = SCHEMA[table]
        unknown = sorted(set(values) - set(spec.columns))
        if unknown:
            raise KeyError(f"{table} has no column {unknown[0]!r}")
        row: Row = {}
        for column, default in spec.columns.items():
            value = values.get(column, default)
            if value is NOW:
                value = self.now
            elif column == "id" and spec.serial and value is REQUIRED:
                value = self._tables.next_id(table)
            row[column] = value
        missing = [column for column, value in row.items() if value is REQUIRED]
        if missing:
            self._violated(f"null value in column {missing[0]!r} of {table}")
        return self._put(table, self._normalised(table, row), new=True)

    def update(self, table: str, key: Any, **changes: Any) -> Row:
        found = self.get(table, key)
        if found is None:
            raise KeyError(f"{table} has no row {key!r}")
        unknown = sorted(set(changes) - set(SCHEMA[table].columns))
        if unknown:
            raise KeyError(f"{table} has no column {unknown[0]!r}")
        return self._put(table, self._normalised(table, {**found, **changes}), new=False)

    def delete(self, table: str, key: Any) -> Row:
        """Delete a row, with what its foreign keys say of the rows that name it."""
        found = self.get(table, key)
        if found is None:
            raise KeyError(f"{table} has no row {key!r}")
        for other, spec in SCHEMA.items():
            for column, reference in spec.references.items():
                if reference.table != table:
                    continue
                for row in [r for r in self.rows(other) if r[column] == key]:
                    if reference.on_delete == "restrict":
                        self._violated(f"{other}.{column} still refers to {table} {key!r}")
                    elif reference.on_delete == "cascade":
                        self.delete(other, key_of(other, row))
                    else:
                        self.update(other, key_of(other, row), **{column: None})
        self._written[table][key] = None
        return found

    def _normalised(self, table: str, row: Row) -> Row:
        for column in SCHEMA[table].json:
            if row[column] is not None:
                row[column] = as_jsonb(row[column])
        if table == "stack":
            row["tags"] = list(row["tags"] or ())
        return row

    def _put(self, table: str, row: Row, *, new: bool) -> Row:
        key = key_of(table, row)
        if new and key in self._merged(table):
            self._violated(f"duplicate key {key!r} in {table}")
        self._check(table, key, row, self._merged(table))
        self._written[table][key] = row
        return dict(row)

    def _check(self, table: str, key: Any, row: Row, rows: Mapping[Any, Row]) -> None:
        """The unique indexes and foreign keys `row` must keep, among `rows`."""
        spec = SCHEMA[table]
        for unique in spec.uniques:
            values = tuple(row[c] for c in unique.columns)
            if None in values or not unique.holds(row):
                continue
            for other_key, other in rows.items():
                same = tuple(other[c] for c in unique.columns) == values
                if other_key != key and same and unique.holds(other):
                    self._violated(f"duplicate {unique.columns} {values!r} in {table}")
        for column, reference in spec.references.items():
            value = row[column]
            if value is None:
                continue
            if value == key and reference.table == table:
                continue
            if self.get(reference.table, value) is None:
                self._violated(f"{table}.{column} names {reference.table} {value!r}, not there")

    def _violated(self, message: str) -> None:
        self._spoilt = message
        raise Violation(message)

    # ------------------------------------------------------------ ending

    def commit(self) -> None:
        """Make every write visible, after checking them against what others committed
        meanwhile; nothing is written if a check fails."""
        if self._spoilt is not None:
            raise AbortedTransaction(f"commit of an aborted transaction ({self._spoilt})")
        for table, written in self._written.items():
            merged = self._merged(table)
            for key, row in written.items():
                if row is not None:
                    self._check(table, key, row, merged)
        for table, written in self._written.items():
            committed = self._tables.rows[table]
            for key, row in written.items():
                if row is None:
                    committed.pop(key, None)
                else:
                    committed[key] = row


def columns_of(row: Row) -> SimpleNamespace:
    """A row's columns as attributes, which is what conv_tasks.db.rows' converters read."""
    return SimpleNamespace(**row)
