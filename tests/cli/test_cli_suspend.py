"""`conv-tasks stack suspend` and `stack resume`, driving the real executable against real
workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_process import run, tenant, test_resource, write_template


@pytest.fixture
def who(workers: Any) -> str:
    return tenant()


def test_suspend_and_resume_from_the_cli(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"a": test_resource("1"), "b": test_resource("2")})
    created = run(who, "stack", "create", "cli-sleep", "-t", path, "--wait")
    assert created.returncode == 0, created.stdout + created.stderr

    suspended = run(who, "stack", "suspend", "cli-sleep", "--wait")
    assert suspended.returncode == 0, suspended.stdout + suspended.stderr
    last = suspended.stdout.splitlines()[-1]
    assert "SUSPEND_COMPLETE" in last and "2 suspended" in last, suspended.stdout
    shown = json.loads(run(who, "--json", "stack", "show", "cli-sleep").stdout)
    assert shown["status"] == "SUSPEND_COMPLETE"

    again = run(who, "stack", "suspend", "cli-sleep")
    assert again.returncode == 1
    assert "'cli-sleep' is SUSPEND_COMPLETE: it is suspended already" in again.stderr
    assert "Traceback" not in again.stderr
    updated = run(who, "stack", "update", "cli-sleep", "-t", path)
    assert updated.returncode == 1 and "resume it first" in updated.stderr

    resumed = run(who, "stack", "resume", "cli-sleep", "--wait")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "RESUME_COMPLETE" in resumed.stdout.splitlines()[-1]
    twice = run(who, "stack", "resume", "cli-sleep")
    assert twice.returncode == 1 and "only a suspended stack" in twice.stderr

    listed = run(who, "stack", "list", "-f", "value", "-c", "name", "-c", "status")
    assert "RESUME_COMPLETE" in listed.stdout


def test_suspend_of_an_unknown_stack_is_one_line(who: str) -> None:
    done = run(who, "stack", "suspend", "nope")
    assert done.returncode == 1
    assert "nope" in done.stderr and "Traceback" not in done.stderr
