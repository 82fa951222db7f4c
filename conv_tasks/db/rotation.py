"""Re-sealing every sealed column with the first key (`conv-tasks db rotate-key`).

Row by row, in batches of short transactions: a batch reads its rows' sealed columns as
text, re-seals those not sealed with the first key yet (plaintext rows included), and writes
each row back with a compare-and-swap on the text it read, so a row a worker wrote in the
meantime is never overwritten with an older value; it is read again and re-sealed from what
the worker wrote. Only the rows a batch changes are locked, for the length of the batch. The
values mean the same before and after, so nothing else about a row changes (not its
atomic_key either: a compare-and-swap of the engine that read it before still holds).

Running it twice re-seals nothing the second time. Workers must already have the new key
first in CONV_TASKS_ENCRYPTION_KEYS (and the old one after it), or what they write meanwhile
is sealed with the old key again: the report counts what it re-sealed, run it again to see 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text

from conv_tasks.db.sealed_columns import SEALED_COLUMNS, TEXT_COLUMNS
from conv_tasks.db.session import get_engine
from conv_tasks.secrets_at_rest import Sealer, is_sealed

# A row a worker keeps writing is tried this many times before it is left for the next run.
_ATTEMPTS = 5
# raw_template.template is json (it keeps the order it was written in), the others jsonb.
_JSON_TYPES = {("raw_template", "template"): "json"}


@dataclass
class RotationReport:
    """What a rotation did: values re-sealed per table, rows left for another run."""

    resealed: dict[str, int] = field(default_factory=dict)
    left: int = 0

    @property
    def total(self) -> int:
        return sum(self.resealed.values())

    def to_dict(self) -> dict[str, Any]:
        return {"resealed": self.total, "by_table": dict(self.resealed), "left": self.left}


def reseal_database(
    url: str,
    sealer: Sealer,
    *,
    batch_size: int = 200,
    progress: Callable[[str, int], None] | None = None,
) -> RotationReport:
    """Re-seal every sealed column of every row with `sealer`'s first key."""
    report = RotationReport()
    engine = get_engine(url)
    for table, (key, columns) in SEALED_COLUMNS.items():
        report.resealed[table] = 0
        after: Any = None
        while True:
            with engine.begin() as conn:
                rows = _batch(conn, table, key, columns, after, batch_size)
                for row in rows:
                    done, left = _reseal_row(conn, sealer, table, key, columns, row)
                    report.resealed[table] += done
                    report.left += left
            if not rows:
                break
            after = rows[-1][0]
            if progress is not None:
                progress(table, report.resealed[table])
    return report


def _batch(
    conn: Connection, table: str, key: str, columns: tuple[str, ...], after: Any, size: int
) -> list[tuple[Any, ...]]:
    texts = ", ".join(f"{column}::text" for column in columns)
    where = "" if after is None else f"WHERE {key} > :after"
    stmt = text(f"SELECT {key}, {texts} FROM {table} {where} ORDER BY {key} LIMIT :size")
    return [tuple(row) for row in conn.execute(stmt, {"after": after, "size": size})]


def _reseal_row(
    conn: Connection,
    sealer: Sealer,
    table: str,
    key: str,
    columns: tuple[str, ...],
    row: tuple[Any, ...],
) -> tuple[int, int]:
    """(values re-sealed, 1 if the row was left for another run)."""
    for _ in range(_ATTEMPTS):
        row_id, stored = row[0], row[1:]
        changes: dict[str, tuple[str, str]] = {}
        for column, old in zip(columns, stored, strict=True):
            new = _resealed(sealer, table, column, old, row_id)
            if new is not None:
                changes[column] = (old, new)
        if not changes:
            return 0, 0
        assign = ", ".join(
            f"{column} = CAST(:new_{column} AS {_type(table, column)})" for column in changes
        )
        same = " AND ".join(f"{column}::text = :old_{column}" for column in changes)
        params: dict[str, Any] = {"id": row_id}
        for column, (old, new) in changes.items():
            params[f"old_{column}"] = old
            params[f"new_{column}"] = new
        stmt = text(f"UPDATE {table} SET {assign} WHERE {key} = :id AND {same}")
        if conn.execute(stmt, params).rowcount == 1:
            return len(changes), 0
        # Written meanwhile (or gone): read it again.
        texts = ", ".join(f"{column}::text" for column in columns)
        again = conn.execute(
            text(f"SELECT {key}, {texts} FROM {table} WHERE {key} = :id"), {"id": row_id}
        ).first()
        if again is None:
            return 0, 0
        row = tuple(again)
    return 0, 1


def _type(table: str, column: str) -> str:
    if (table, column) in TEXT_COLUMNS:
        return "text"
    return _JSON_TYPES.get((table, column), "jsonb")


def _resealed(sealer: Sealer, table: str, column: str, old: str | None, row_id: Any) -> str | None:
    """The text to write for `old` (a column read as text), or None to leave it."""
    if old is None:
        return None
    where = f"{table}.{column} of row {row_id}"
    if (table, column) in TEXT_COLUMNS:
        return sealer.reseal(old, where=where)
    if old == "null":
        return None
    value = json.loads(old) if old.startswith('"') else None
    inner = value if isinstance(value, str) and is_sealed(value) else old
    new = sealer.reseal(inner, where=where)
    return None if new is None else json.dumps(new)
