"""How `stack create|update|delete|check --wait` ends: the real `conv-tasks` executable
against real workers. A success ends with its status and what it did to the resources on
stdout; a failure, a rolled-back one too, with one red `ERROR:` line on stderr: the engine's
summary of the failed operation ('2 created, 1 failed (bad: …), 1 not started'), then what
its rollback did. Exit codes stay as docs/cli.md says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_process import on_terminal, run, tenant, test_resource, write_template

RED = "\x1b[1;31m"
REASON = "bad: Resource bad failed to create because it was asked to (TestResource fail/fail_on)."


@pytest.fixture
def who(workers: Any) -> str:
    return tenant()


def plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


def test_a_create_that_rolls_back_ends_on_a_red_error_with_both_counts(
    who: str, tmp_path: Path
) -> None:
    path = write_template(
        tmp_path / "t.json",
        {
            "first": test_resource("1"),
            "second": {**test_resource("2"), "depends_on": ["first"]},
            "bad": {**test_resource("3", fail_on=["create"]), "depends_on": ["first"]},
        },
    )
    done = run(who, "stack", "create", "broken", "-t", path, "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        f"ERROR: stack broken: CREATE_FAILED: 2 created, 1 failed ({REASON}); "
        "then ROLLBACK_COMPLETE: 3 deleted\n"
    )  # the failed one too, by its create's token: it may have made something (issue 31)
    # No green closing line on stdout: it ends with the events.
    assert not done.stdout.splitlines()[-1].startswith("broken:")

    code, shown = on_terminal(
        who, "stack", "create", "broken2", "-t", path, "--wait", columns=80, stderr_too=True
    )
    assert code == 1, shown
    last = shown.rstrip().splitlines()[-1]  # after the status line, taken away
    assert f"{RED}ERROR: stack broken2: CREATE_FAILED: 2 created, 1 failed (" in last
    # One line however wide the terminal: the terminal wraps it, nothing cuts it.
    assert plain(last).endswith(f"({REASON}); then ROLLBACK_COMPLETE: 3 deleted")


def test_a_failure_without_rollback_counts_what_was_done_and_what_never_started(
    who: str, tmp_path: Path
) -> None:
    path = write_template(
        tmp_path / "t.json",
        {
            "good": test_resource("1"),
            "bad": test_resource("2", fail_on=["create"]),
            "after": {**test_resource("3"), "depends_on": ["bad"]},
            "later": {**test_resource("4"), "depends_on": ["after"]},
        },
    )
    done = run(who, "stack", "create", "kept", "-t", path, "--disable-rollback", "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = f"1 created, 1 failed ({REASON}), 2 not started"
    assert done.stderr == f"ERROR: stack kept: CREATE_FAILED: {summary}\n"
    # The stack's reason says the same, and so does `stack show`.
    shown = json.loads(run(who, "--json", "stack", "show", "kept").stdout)
    assert shown["status_reason"] == summary


def test_a_successful_update_counts_each_kind_of_change(who: str, tmp_path: Path) -> None:
    before = write_template(
        tmp_path / "before.json",
        {
            "keep": test_resource("k"),
            "inplace": test_resource("a"),
            "repl": test_resource("a", update_replace=True),
            "gone": test_resource("g"),
        },
    )
    after = write_template(
        tmp_path / "after.json",
        {
            "keep": test_resource("k"),
            "inplace": test_resource("b"),
            "repl": test_resource("b", update_replace=True),
            "added": test_resource("n"),
        },
    )
    done = run(who, "stack", "create", "changing", "-t", before, "--wait")
    assert done.stdout.splitlines()[-1] == (
        "changing: CREATE_COMPLETE. Resources: 4 created, 0 updated, 0 replaced, 0 deleted, "
        "0 failed."
    )
    done = run(who, "stack", "update", "changing", "-t", after, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[-1] == (
        "changing: UPDATE_COMPLETE. Resources: 1 created, 1 updated, 1 replaced, 1 deleted, "
        "0 failed."
    )
    done = run(who, "stack", "check", "changing", "--wait")
    assert (
        done.stdout.splitlines()[-1] == "changing: CHECK_COMPLETE. Resources: 4 checked, 0 failed."
    )
    done = run(who, "--json", "stack", "delete", "changing", "--yes", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    final = json.loads(done.stdout[done.stdout.index("{\n") :])
    assert final["status"] == "DELETE_COMPLETE"
    assert final["counts"] == [
        {
            "action": "DELETE",
            "status": "DELETE_COMPLETE",
            "created": 0,
            "updated": 0,
            "replaced": 0,
            "deleted": 4,
            "failed": 0,
        }
    ]


def test_apply_says_what_it_did_and_waits_only_for_an_operation(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"a": test_resource("1")})
    done = run(who, "stack", "apply", "app", "-t", path, "--tags", "x", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0].startswith("app: created, CREATE_IN_PROGRESS (id ")
    assert done.stdout.splitlines()[-1].startswith("app: CREATE_COMPLETE. Resources: 1 created")

    done = run(who, "stack", "apply", "app", "-t", path, "--tags", "x", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    # Nothing to follow: one line.
    [line] = done.stdout.splitlines()
    assert line.startswith("app: unchanged, CREATE_COMPLETE (id ")

    changed = write_template(tmp_path / "t2.json", {"a": test_resource("2")})
    done = run(who, "--json", "stack", "apply", "app", "-t", changed, "--tags", "x")
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert (answer["result"], answer["status"]) == ("updated", "UPDATE_IN_PROGRESS")

    bad = write_template(tmp_path / "bad.json", {"a": {"type": "No::Such::Type"}})
    done = run(who, "stack", "apply", "app", "-t", bad)
    assert done.returncode == 1
    assert done.stderr.startswith("ERROR: ") and "No::Such::Type" in done.stderr


def test_delete_retain_and_rollback_skip_name_what_they_leave(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"a": test_resource("1"), "b": test_resource("2")})
    assert run(who, "stack", "create", "kept", "-t", path, "--wait").returncode == 0

    done = run(who, "stack", "delete", "kept", "--retain", "b", "--retain", "nope", "--yes")
    assert done.returncode == 1
    assert done.stderr == (
        "ERROR: Invalid input: retain[1]: stack 'kept' has no resource 'nope'; "
        "its resources are a, b\n"
    )
    done = run(who, "stack", "delete", "kept", "--retain", "b", "--yes", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "b                        DELETE_COMPLETE  retained at the request" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("kept: DELETE_COMPLETE.")

    bad = write_template(tmp_path / "bad.json", {"x": test_resource("1", fail_on=["create"])})
    run(who, "stack", "create", "failed", "-t", bad, "--disable-rollback", "--wait")
    done = run(who, "stack", "rollback", "failed", "--skip", "x", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "x                        DELETE_COMPLETE  skipped by the rollback" in done.stdout
