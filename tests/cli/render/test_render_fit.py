"""Fitting a table to the terminal's width without breaking a word: conv_tasks/cli/render/fit.py,
and the table screen.py draws with it."""

from __future__ import annotations

import io

from rich.console import Console

from conv_tasks.cli.render import screen
from conv_tasks.cli.render.fit import fit, parts, wrap

COLUMNS = ["name", "type", "version", "physical_id", "status", "status_reason"]
REASON = "Resource web failed to update because it was asked to (TestResource fail/fail_on)."
ROWS = [
    ["web_server", "OS::Heat::TestResource", "0", "3e170052-115d-48c1-a58e-b255dfc2f93b",
     "CHECK_COMPLETE", ""],
    ["database", "OS::Heat::RandomString", "1", "996adba7-b77a-5c3a-b00b-e37f724c506a",
     "UPDATE_FAILED", REASON],
]  # fmt: skip


def drawn(rows: list[list[str]], columns: list[str], width: int) -> list[str]:
    sink = io.StringIO()
    screen.table(rows, columns, out=Console(file=sink, width=width, force_terminal=False))
    return sink.getvalue().splitlines()


def test_words_wrap_between_words_then_between_parts_then_are_cut() -> None:
    assert wrap("asked to (TestResource fail/fail_on).", 13) == [
        "asked to",
        "(TestResource",
        "fail/fail_",
        "on).",
    ]
    assert parts("OS::Heat::TestResource") == ["OS::", "Heat::", "TestResource"]
    assert wrap("OS::Heat::TestResource", 12) == ["OS::Heat::", "TestResource"]
    assert wrap("abcdefghij", 5) == ["abcd…"]
    assert wrap("", 5) == [""]


def test_an_80_column_table_keeps_statuses_names_and_types_whole() -> None:
    lines = drawn(ROWS, COLUMNS, 80)
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    for word in ("CHECK_COMPLETE", "UPDATE_FAILED", "web_server", "database", "TestResource"):
        assert word in text
    assert "3e170052…" in text  # ids cut short, never wrapped over lines
    # Free text wrapped between words: every word of the reason is there whole.
    assert all(word in text for word in REASON.split() if len(word) < 13)


def test_free_text_wraps_before_ids_are_cut_and_ids_before_names_wrap() -> None:
    wide = fit(COLUMNS, ROWS, 200)
    assert [c.width for c in wide] == [10, 22, 7, 36, 14, len(REASON)]
    # Only the reason needs to give: it wraps, to no narrower than 30 at first.
    roomy = fit(COLUMNS, ROWS, 140)
    assert [c.width for c in roomy][:5] == [10, 22, 7, 36, 14]
    assert 30 <= roomy[5].width < len(REASON)
    # Then the ids are cut (to their header), and only then do names and types wrap.
    narrow = fit(COLUMNS, ROWS, 80)
    assert narrow[3].width == len("physical_") and narrow[3].cuts
    assert narrow[4].width == len("CHECK_COMPLETE")
    assert sum(c.width for c in narrow) + 2 * 5 <= 80


def test_a_table_too_narrow_for_whole_parts_cuts_rather_than_folds() -> None:
    lines = drawn(ROWS, COLUMNS, 40)
    assert max(len(line) for line in lines) <= 40
    assert any("…" in line for line in lines)


def test_plain_cells_that_fit_are_untouched() -> None:
    assert drawn([["web", "CREATE_COMPLETE"]], ["name", "status"], 80)[2].split() == [
        "web",
        "CREATE_COMPLETE",
    ]
