"""The CLI's plain-text output: fixed-width tables and key/value fields."""

from __future__ import annotations

import pytest

from conv_tasks.cli.render import output


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_table_aligns_columns_to_the_widest_cell(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"name": "web", "status": "CREATE_COMPLETE"},
        {"name": "database-server", "status": "INIT"},
    ]
    output.table(rows, ["name", "status"])
    assert lines(capsys) == [
        "name             status",
        "---------------  ---------------",
        "web              CREATE_COMPLETE",
        "database-server  INIT",
    ]


def test_table_header_wider_than_cells(capsys: pytest.CaptureFixture[str]) -> None:
    output.table([{"id": 1, "physical_id": "p"}], ["id", "physical_id"])
    assert lines(capsys) == [
        "id  physical_id",
        "--  -----------",
        "1   p",
    ]


def test_table_columns_start_at_the_same_offset(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"a": "x" * n, "b": "y", "c": "z"} for n in (1, 7, 3)]
    output.table(rows, ["a", "b", "c"])
    printed = lines(capsys)
    starts = {(line.index("y"), line.index("z")) for line in printed[2:]}
    assert starts == {(9, 12)}


def test_table_missing_and_none_cells_are_blank_and_json_cells_keep_their_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [{"k": None, "v": {"b": 1, "a": [2]}}, {"v": "plain"}]
    output.table(rows, ["k", "v"])
    blob = '{"b": 1, "a": [2]}'
    assert lines(capsys) == [
        "k  v",
        f"-  {'-' * len(blob)}",
        f"   {blob}",
        "   plain",
    ]


def test_table_without_rows_prints_header_only(capsys: pytest.CaptureFixture[str]) -> None:
    output.table([], ["name", "status"])
    assert lines(capsys) == ["name  status", "----  ------"]


def test_fields_prints_one_aligned_line_per_key(capsys: pytest.CaptureFixture[str]) -> None:
    output.fields({"id": 7, "name": "web", "status": "CREATE_COMPLETE"})
    assert lines(capsys) == [
        "id      7",
        "name    web",
        "status  CREATE_COMPLETE",
    ]


def test_fields_renders_none_blank_and_structures_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    output.fields({"tags": ["b", "a"], "meta": {"z": 1, "y": None}, "gone": None})
    assert lines(capsys) == [
        'tags  ["b", "a"]',
        'meta  {"z": 1, "y": null}',
        "gone  ",
    ]


def test_fields_of_nothing_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    output.fields({})
    assert capsys.readouterr().out == ""


def test_emit_json_keeps_the_order_given_and_is_indented(
    capsys: pytest.CaptureFixture[str],
) -> None:
    output.emit_json({"b": 1, "a": [1]})
    assert capsys.readouterr().out == '{\n  "b": 1,\n  "a": [\n    1\n  ]\n}\n'
