"""Printing results: tables for people, JSON for scripts.

On a terminal, tables and fields are drawn with rich (screen.py beside this module,
imported only then); anywhere else (a pipe, a file, a test) they are the plain
fixed-width text below, with no escape codes, which scripts may parse.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click


def on_terminal() -> bool:
    """Whether stdout is a terminal a person reads (then rich draws the output)."""
    return sys.stdout.isatty()


def emit_json(data: Any) -> None:
    """`data` as indented JSON, its keys in the order given (template order, -c order)."""
    click.echo(json.dumps(data, indent=2, default=str))


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """A table of `columns` from each row: drawn by rich on a terminal, else fixed-width."""
    cells = [[cell(row.get(col)) for col in columns] for row in rows]
    if on_terminal():
        from conv_tasks.cli.render import screen

        screen.table(cells, columns)
        return
    widths = [max([len(col), *(len(r[i]) for r in cells)]) for i, col in enumerate(columns)]
    click.echo("  ".join(col.ljust(widths[i]) for i, col in enumerate(columns)).rstrip())
    click.echo("  ".join("-" * w for w in widths))
    for row in cells:
        click.echo("  ".join(row[i].ljust(widths[i]) for i in range(len(columns))).rstrip())


def fields(data: Mapping[str, Any]) -> None:
    """One `key  value` line per field."""
    if on_terminal():
        from conv_tasks.cli.render import screen

        screen.fields({key: cell(value) for key, value in data.items()})
        return
    width = max((len(k) for k in data), default=0)
    for key, value in data.items():
        click.echo(f"{key.ljust(width)}  {cell(value)}")


def cell(value: Any) -> str:
    """A value as one cell: blank for None, JSON for structures (keys in the order given)."""
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return str(value)
