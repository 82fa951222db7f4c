"""What the CLI draws with rich on a terminal: tables, key/value fields and the live status line.

Only output.py and progress.py beside it import this module, and only once they know
stdout is a terminal: a pipe, a file or `-f json|yaml|value` never loads rich (about
30 ms of start-up; docs/development/libraries.md) and never gets its escape codes. Every cell is
a rich `Text`, never a markup string, so a value such as `[red]x[/red]` in a template is
printed as written.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import IO

from rich import box
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from conv_tasks.cli.render.fit import GAP, fit, wrap

# Status words and the colour each is drawn in, by how the status ends.
STATUS_STYLES = (("COMPLETE", "green"), ("FAILED", "bold red"), ("IN_PROGRESS", "yellow"))


def console(file: IO[str] | None = None) -> Console:
    """A console on stdout; no guessing of numbers or URLs to highlight, so only statuses
    are coloured."""
    return Console(file=file or sys.stdout, highlight=False)


def error_line(text: str, *, out: Console | None = None) -> None:
    """`text` in red on stderr, as one line however long (the terminal wraps it, rich
    does not cut it)."""
    (out or console(sys.stderr)).print(Text(text, style="bold red"), soft_wrap=True)


def status_text(value: str) -> Text:
    for suffix, style in STATUS_STYLES:
        if value.endswith(suffix):
            return Text(value, style=style)
    return Text(value)


def _cell(column: str, value: str) -> Text:
    return status_text(value) if column == "status" else Text(value)


def table(
    rows: Sequence[Sequence[str]], columns: Sequence[str], *, out: Console | None = None
) -> None:
    """`rows` (cells already as text) under `columns`, statuses coloured, fitted to the
    terminal's width without breaking a word (fit.py makes every line; rich draws them)."""
    out = out or console()
    fitted = fit(columns, rows, out.width)
    drawn = Table(
        box=box.SIMPLE_HEAD,
        header_style="bold",
        show_edge=False,
        pad_edge=False,
        padding=(0, GAP - 1, 0, 0),  # GAP - 1 spaces and the box's one between columns
    )
    for column, shape in zip(columns, fitted, strict=True):
        header = "\n".join(wrap(column, shape.width))
        drawn.add_column(header, width=shape.width, no_wrap=True, overflow="ellipsis")
    for row in rows:
        drawn.add_row(
            *(
                _cell(column, shape.lines(value))
                for column, shape, value in zip(columns, fitted, row, strict=True)
            )
        )
    out.print(drawn)


def fields(data: Mapping[str, str], *, out: Console | None = None) -> None:
    """One `key  value` line per field, keys bold, a status coloured."""
    drawn = Table.grid(padding=(0, 2))
    drawn.add_column(style="bold", no_wrap=True)
    drawn.add_column(overflow="fold")
    for key, value in data.items():
        drawn.add_row(Text(key), _cell(key, value))
    (out or console()).print(drawn)


class LiveLine:
    """A status line kept at the bottom of the terminal while lines print above it.

    It redraws only when told (`show`), on each poll of the engine: no refresh
    thread of its own."""

    def __init__(self, out: Console | None = None) -> None:
        self.out = out or console()
        self._live: Live | None = None

    def print(self, *parts: Text | str) -> None:
        self.out.print(Text.assemble(*parts))

    def show(self, line: Text) -> None:
        if self._live is None:
            self._live = Live(
                line,
                console=self.out,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        else:
            self._live.update(line, refresh=True)

    def close(self) -> None:
        """Take the line away and give the terminal back (also after Ctrl-C)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
