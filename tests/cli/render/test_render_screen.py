"""Rich on a terminal, plain text elsewhere: conv_tasks/cli/render/screen.py and where the CLI
uses it.

Unit tests draw on a console that claims to be a terminal; process tests run the
real `conv-tasks` with its stdout on a pseudo-terminal, and on a pipe.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_process import CONV_TASKS, cli_env, on_terminal, tenant, test_resource, write_template
from rich.console import Console
from rich.text import Text

from conv_tasks.cli.render import screen

ESC = "\x1b["
GREEN = "\x1b[32m"


def terminal() -> tuple[Console, io.StringIO]:
    sink = io.StringIO()
    return Console(file=sink, force_terminal=True, color_system="standard", width=100), sink


def test_table_draws_every_cell_and_colours_statuses() -> None:
    out, sink = terminal()
    screen.table([["web", "CREATE_COMPLETE"], ["db", "CREATE_FAILED"]], ["name", "status"], out=out)
    text = sink.getvalue()
    for word in ("name", "status", "web", "db", "CREATE_FAILED"):
        assert word in text
    assert f"{GREEN}CREATE_COMPLETE" in text
    assert "─" in text  # rich's rule under the header


def test_a_value_that_looks_like_markup_is_printed_as_written() -> None:
    out, sink = terminal()
    screen.table([["[red]x[/red]", "[bold]"]], ["name", "reason"], out=out)
    screen.fields({"name": "[link=http://x]y[/link]"}, out=out)
    text = sink.getvalue()
    assert "[red]x[/red]" in text
    assert "[bold]" in text
    assert "[link=http://x]y[/link]" in text


def test_only_the_status_column_is_coloured() -> None:
    out, sink = terminal()
    screen.table([["CREATE_COMPLETE", "CREATE_COMPLETE"]], ["reason", "status"], out=out)
    assert sink.getvalue().count(GREEN) == 1


def test_live_line_shows_under_the_printed_lines_and_goes_away() -> None:
    out, sink = terminal()
    line = screen.LiveLine(out)
    line.show(Text("[  0.1s] CREATE_IN_PROGRESS  1 resource"))
    line.print("12:00:00  web  ", screen.status_text("CREATE_COMPLETE"))
    line.show(Text("[  0.2s] CREATE_COMPLETE  1 resource: 1 complete"))
    line.close()
    text = sink.getvalue()
    assert "12:00:00  web" in text
    assert "1 resource: 1 complete" in text
    # transient: the last thing written erases the status line again
    assert text.rstrip("\r\n").endswith(("\x1b[2K", "\x1b[?25h"))
    line.close()  # twice is harmless (close runs after Ctrl-C too)


def on_pty(*args: str, who: str = "") -> tuple[int, str]:
    """Run conv-tasks with stdout on a pseudo-terminal 100 columns wide."""
    return on_terminal(who or tenant(), *args, columns=100)


def test_a_listing_on_a_terminal_is_drawn_by_rich() -> None:
    code, text = on_pty("resource-type", "list")
    assert code == 0, text
    assert "OS::Heat::TestResource" in text
    assert "─" in text
    assert ESC in text


def test_machine_formats_on_a_terminal_have_no_escape_codes() -> None:
    for fmt in ("json", "yaml", "value"):
        code, text = on_pty("resource-type", "list", "-f", fmt)
        assert code == 0, text
        assert ESC not in text, fmt
        assert "─" not in text, fmt


def test_a_listing_on_a_pipe_is_the_plain_table() -> None:
    done = subprocess.run(
        [CONV_TASKS, "resource-type", "list"],
        env=cli_env(tenant()),
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["type", "status"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert ESC not in done.stdout


def test_the_cli_does_not_load_rich_until_it_draws() -> None:
    probe = "import sys, conv_tasks.cli.main; print('rich' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_wait_on_a_terminal_keeps_a_status_line_under_the_events(
    workers: Any, tmp_path: Path
) -> None:
    who = tenant()
    resources = {
        "a": test_resource("1", wait_secs=2),  # several polls see `a` in progress
        "b": {**test_resource("2"), "depends_on": ["a"]},
    }
    path = write_template(tmp_path / "t.json", resources)
    code, text = on_pty("stack", "create", "shown", "-t", path, "--wait", who=who)
    assert code == 0, text
    # The status line, drawn while `a` waits: elapsed time, stack status, resource counts.
    assert re.search(r"\[\s*\d+\.\ds\] .*CREATE_IN_PROGRESS.*  1 resource: 1 in progress", text)
    assert f"{GREEN}CREATE_COMPLETE" in text
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    final = plain.strip().splitlines()[-1].strip("\r")
    assert final == (
        "shown: CREATE_COMPLETE. Resources: 2 created, 0 updated, 0 replaced, 0 deleted, 0 failed."
    ), final
