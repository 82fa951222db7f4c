"""`-f json|yaml|csv|table|value` and `-c COLUMN` for listings and shows, as in `openstack`.

A listing prints its default columns as a table; `-c` picks columns (any
field of the rows, repeatable, in the order given); `-f value` prints the
cells alone, space-separated, one row a line, for shell scripts; `-f json`
and `-f yaml` print the rows whole, or only the picked columns; `-f csv` prints
a header row and one row per row, quoted as cliff (heatclient's formatter) quotes
them (`--quote`, nonnumeric by default). Every format keeps the order of the rows
as the engine gave them and of the columns as `-c` gave them: nothing is sorted here.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import click
import yaml

from conv_tasks.cli.render.output import cell, emit_json, fields, table

FORMATS = ("table", "json", "yaml", "csv", "value")
# cliff's CSV formatter's quoting modes (`openstack ... -f csv --quote MODE`); csv itself is
# imported only when a command prints CSV (start-up: docs/development/libraries.md).
QUOTING = ("all", "minimal", "nonnumeric", "none")
F = TypeVar("F", bound=Callable[..., Any])


def _store(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        ctx.meta[f"conv_tasks.{name}"] = value
        return value

    return callback


def format_options(func: F) -> F:
    """Add -f/--format and -c/--column to a command; read them back with chosen()."""
    func = click.option(
        "-c",
        "--column",
        "columns",
        multiple=True,
        metavar="COLUMN",
        expose_value=False,
        callback=_store("columns"),
        help="A column to print (repeatable); any field of the rows.",
    )(func)
    func = click.option(
        "--quote",
        "quote",
        type=click.Choice(QUOTING),
        default="nonnumeric",
        show_default=True,
        expose_value=False,
        callback=_store("quote"),
        help="When -f csv quotes a cell.",
    )(func)
    func = click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        expose_value=False,
        callback=_store("format"),
        help="Output format (default: table; json with --json).",
    )(func)
    return func


def chosen(as_json: bool) -> tuple[str, tuple[str, ...]]:
    """The format and the columns the current command was asked for."""
    meta = click.get_current_context().meta
    fmt = meta.get("conv_tasks.format") or ("json" if as_json else "table")
    return fmt, tuple(meta.get("conv_tasks.columns") or ())


def _pick(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    known: set[str] = set()
    for row in rows:
        known.update(row)
    unknown = [c for c in columns if c not in known]
    if rows and unknown:
        raise click.UsageError(
            f"no column {', '.join(unknown)}; the columns are: {', '.join(sorted(known))}"
        )


def _emit_structured(fmt: str, data: Any) -> None:
    if fmt == "json":
        emit_json(data)
    else:
        click.echo(yaml.safe_dump(data, sort_keys=False, default_flow_style=False).rstrip())


def _csv_cell(value: Any) -> Any:
    # Numbers stay numbers (QUOTE_NONNUMERIC leaves them unquoted); structures are JSON.
    return value if isinstance(value, int | float) or value is None else cell(value)


def _emit_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """A header row, then one row per row, as cliff's CSV formatter writes them."""
    import csv

    modes: dict[str, Literal[0, 1, 2, 3]] = {
        "all": csv.QUOTE_ALL,
        "minimal": csv.QUOTE_MINIMAL,
        "nonnumeric": csv.QUOTE_NONNUMERIC,
        "none": csv.QUOTE_NONE,
    }
    quoting = modes[click.get_current_context().meta.get("conv_tasks.quote") or "nonnumeric"]
    text = io.StringIO()
    writer = csv.writer(text, quoting=quoting, lineterminator="\n", escapechar="\\")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(c)) for c in columns])
    click.echo(text.getvalue(), nl=False)


def emit_rows(rows: Sequence[Mapping[str, Any]], default: Sequence[str], as_json: bool) -> None:
    """Print a listing in the format and columns the command was asked for."""
    fmt, columns = chosen(as_json)
    _pick(rows, columns)
    if fmt in ("json", "yaml"):
        data = [{c: row.get(c) for c in columns} for row in rows] if columns else list(rows)
        _emit_structured(fmt, data)
        return
    shown = list(columns or default)
    if fmt == "csv":
        _emit_csv(rows, shown)
        return
    if fmt == "value":
        for row in rows:
            click.echo(" ".join(cell(row.get(c)) for c in shown))
        return
    table(rows, shown)


def emit_fields(data: Mapping[str, Any], as_json: bool) -> None:
    """Print one object (a show) in the format and fields the command was asked for."""
    fmt, columns = chosen(as_json)
    _pick([data], columns)
    picked = {c: data.get(c) for c in columns} if columns else dict(data)
    if fmt in ("json", "yaml"):
        _emit_structured(fmt, picked)
    elif fmt == "csv":
        _emit_csv([picked], list(picked))
    elif fmt == "value":
        for value in picked.values():
            click.echo(cell(value))
    else:
        fields(picked)
