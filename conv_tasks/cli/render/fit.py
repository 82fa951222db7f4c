"""Fitting a table to the terminal's width without breaking a word in the middle.

A table wider than the terminal is narrowed, a column at a time and the widest first,
in steps; each step narrows some columns down to a floor below which it would have to cut
into their words, and the next step begins only if the table still does not fit:

1. free text (a column with spaces in its cells: reasons, descriptions, values) wraps
   between its words, down to 30 characters a line;
2. ids and times (`id`, `*_id`, `time`, `*_at`, `*_time`) are cut short with `…`: the
   start of an id, or a time to the second, says which;
3. free text wraps narrower, down to its longest word (or 24 characters);
4. every other column but the status wraps between the parts of its words, after `::`,
   `_`, `-`, `/` or `.` (`OS::Heat::` / `TestResource`, `web_` / `server`);
5. if it still does not fit, anything is cut short with `…` or wrapped between parts,
   the status too.

A header wraps between its parts too (`status_` / `reason`). The lines are made here;
rich (screen.py) only draws them, so it never folds a word where it pleases. Pure: text
in, widths and lines out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

ELLIPSIS = "…"
GAP = 2  # the spaces between two columns (screen.table draws them so)
_PARTS = re.compile(r".*?(?:::|[_\-/.]|$)")  # a word's parts, each with the mark it ends on
_TEXT_COMFORT = 30  # free text wraps this narrow before anything is cut
_TEXT_FLOOR = 24  # and at most this narrow in step 3, long words or not
_ID_FLOOR, _TIME_FLOOR = 9, 20  # "3e170052…", "2026-11-26T07:56:51…"
_LAST_FLOOR = 4


def is_cut(column: str) -> bool:
    """An id or a time: cut short, never wrapped over lines."""
    return column == "id" or column.endswith(("_id", "_at", "_time")) or column == "time"


def parts(word: str) -> list[str]:
    """`OS::Heat::TestResource` -> `OS::`, `Heat::`, `TestResource`."""
    return [part for part in _PARTS.findall(word) if part]


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width`: broken between words, a word longer than a line
    between its parts, a part longer than a line cut short."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            pieces = [word] if len(word) <= width else parts(word)
            for n, piece in enumerate(pieces):
                joined = f"{line} {piece}" if line and n == 0 else line + piece
                if len(joined) <= width:
                    line = joined
                    continue
                if line:
                    lines.append(line)
                line = cut(piece, width)
        lines.append(line)
    return lines


@dataclass(frozen=True)
class FittedColumn:
    """A column's width and how its cells are made to fit it."""

    width: int
    cuts: bool  # cut short (ids, times), else wrapped

    def lines(self, text: str) -> str:
        if self.cuts:
            return "\n".join(cut(line, self.width) for line in text.split("\n"))
        return "\n".join(wrap(text, self.width))


def _longest(words: Sequence[str]) -> int:
    return max((len(word) for word in words), default=0)


def fit(columns: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[FittedColumn]:
    """The width of each column (cells already as text) so that the table, GAP between
    columns, fits `width` if at all possible without cutting words, as the module says."""
    every = range(len(columns))
    cells = [[row[i] for row in rows] for i in every]
    lines = [[line for value in cells[i] for line in value.split("\n")] for i in every]
    words = [[word for value in cells[i] for word in value.split()] for i in every]
    natural = [max(len(columns[i]), _longest(lines[i])) for i in every]
    head = [_longest(parts(column)) for column in columns]
    text = [i for i in every if not is_cut(columns[i]) and any(" " in v.strip() for v in cells[i])]
    cuts = [i for i in every if is_cut(columns[i])]
    text_floor = [max(head[i], min(_longest(words[i]), _TEXT_FLOOR)) for i in every]
    steps = [
        (text, [max(floor, _TEXT_COMFORT) for floor in text_floor]),
        (cuts, [max(head[i], _cut_floor(columns[i])) for i in every]),
        (text, text_floor),
        (
            [i for i in every if columns[i] != "status"],
            [max(head[i], _longest([p for w in words[i] for p in parts(w)])) for i in every],
        ),
        (list(every), [_LAST_FLOOR] * len(columns)),
    ]
    widths = list(natural)
    budget = width - GAP * (len(columns) - 1)
    for candidates, floors in steps:
        _narrow(
            widths, candidates, [min(f, n) for f, n in zip(floors, natural, strict=True)], budget
        )
    return [FittedColumn(w, i in cuts) for i, w in enumerate(widths)]


def _cut_floor(column: str) -> int:
    return _TIME_FLOOR if column == "time" or column.endswith(("_at", "_time")) else _ID_FLOOR


def _narrow(
    widths: list[int], candidates: Sequence[int], floors: Sequence[int], budget: int
) -> None:
    """Narrow the widest of `candidates` by one, again and again, none below its floor,
    until the widths fit `budget` or none can be narrowed."""
    while sum(widths) > budget:
        open_ = [i for i in candidates if widths[i] > floors[i]]
        if not open_:
            return
        widest = max(open_, key=lambda i: (widths[i], i))
        widths[widest] -= 1
