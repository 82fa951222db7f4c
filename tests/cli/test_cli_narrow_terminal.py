"""Tables on an 80-column terminal: the real `conv-tasks` executable, its stdout on a
pseudo-terminal 80 columns wide, against real workers. Every line fits, and no word is
broken in the middle (`CHECK_COMPLET` / `E` was): free text wraps between words, ids and
times are cut short with `…`, names and types wrap between their parts."""

from __future__ import annotations

import re
from typing import Any

import pytest
from cli_process import on_terminal, run, tenant, test_resource, write_template

STACK = "ok-stack-with-a-rather-long-name"
LONG = "middle_resource_with_a_long_name"


@pytest.fixture(scope="module")
def world(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    who = tenant()
    path = write_template(
        tmp_path_factory.mktemp("narrow") / "t.json",
        {
            "zeta": test_resource("z"),
            LONG: {"type": "OS::Heat::RandomString", "properties": {"length": 12}},
            "alpha": test_resource("a"),
        },
    )
    for command in (("create", STACK, "-t", path), ("check", STACK)):
        done = run(who, "stack", *command, "--wait")
        assert done.returncode == 0, done.stdout + done.stderr
    return who


def screen_lines(who: str, *args: str) -> list[str]:
    code, shown = on_terminal(who, *args, columns=80)
    assert code == 0, shown
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).replace("\r", "").splitlines()


def test_stack_resources_fit_80_columns_with_whole_words(world: str) -> None:
    lines = screen_lines(world, "stack", "resources", STACK)
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    text = "\n".join(lines)
    assert text.count("CHECK_COMPLETE") == 3, text
    assert "TestResource" in text and "RandomString" in text
    # The long name wraps after its underscores: its parts are whole, one under the other.
    name_cells = "".join(line.split(" ", 1)[0] for line in lines[2:])
    assert LONG in name_cells, text
    assert re.search(r"\b[0-9a-f]{8}…", text), text  # physical ids cut short


def test_stack_list_and_events_fit_80_columns(world: str) -> None:
    listed = screen_lines(world, "stack", "list")
    assert max(len(line) for line in listed) <= 80, "\n".join(listed)
    assert "CHECK_COMPLETE" in "\n".join(listed)
    events = screen_lines(world, "stack", "events", STACK)
    assert max(len(line) for line in events) <= 80, "\n".join(events)
    text = "\n".join(events)
    assert text.count("CHECK_COMPLETE") == 4, text  # three resources and the stack
    assert "Stack CHECK completed successfully" in " ".join(text.split())
