"""`conv-tasks stack ... --wait` exit codes, one-line errors, Ctrl-C and delete confirmation,
driving the real executable against real workers (and against no worker, and no broker)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
import redis
from cli_process import CONV_TASKS, cli_env, run, tenant, test_resource, write_template

from conv_tasks.client import Client


@pytest.fixture
def who(workers: Any) -> str:
    return tenant()


def test_create_that_fails_and_rolls_back_exits_1(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"bad": test_resource("x", fail_on=["create"])})
    done = run(who, "stack", "create", "broken", "-t", path, "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("ERROR: stack broken: CREATE_FAILED: 1 failed (bad: ")
    # The rollback deletes the failed resource too, by its create's token (issue 31): its
    # create may have made something before it failed.
    assert done.stderr.endswith("); then ROLLBACK_COMPLETE: 1 deleted\n")


def test_create_that_completes_exits_0_counting_resources(who: str, tmp_path: Path) -> None:
    resources = {
        "a": test_resource("1"),
        "b": {**test_resource("2"), "depends_on": ["a"]},
        "c": {**test_resource("3"), "depends_on": ["b"]},
    }
    path = write_template(tmp_path / "t.json", resources)
    done = run(who, "stack", "create", "fine", "-t", path, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    # Six resource events (three IN_PROGRESS, three COMPLETE), three resources.
    assert sum(1 for line in lines if " a " in line or " b " in line or " c " in line) == 6
    assert lines[-1] == (
        "fine: CREATE_COMPLETE. Resources: 3 created, 0 updated, 0 replaced, 0 deleted, 0 failed."
    )
    assert done.stderr == ""


def test_update_that_fails_exits_1(who: str, tmp_path: Path) -> None:
    good = write_template(tmp_path / "good.json", {"a": test_resource("1")})
    assert run(who, "stack", "create", "upd", "-t", good, "--wait").returncode == 0
    bad = write_template(tmp_path / "bad.json", {"a": test_resource("2", fail_on=["update"])})
    done = run(who, "stack", "update", "upd", "-t", bad, "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith("ERROR: stack upd: UPDATE_FAILED: 1 failed (a: ")
    assert "); then ROLLBACK_COMPLETE" in done.stderr


def test_refused_request_is_one_line_exit_1(who: str) -> None:
    done = run(who, "stack", "show", "no-such-stack")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ERROR: ")
    assert "no-such-stack" in done.stderr


def test_no_worker_is_one_line_exit_3(database_url: str, tmp_path: Path) -> None:
    # A broker no worker listens to: the run's result backend database, cleaned after.
    backend = os.environ["CONV_TASKS_RESULT_BACKEND"]
    path = write_template(tmp_path / "t.json", {"a": test_resource("1")})
    try:
        done = run(
            tenant(),
            "--timeout",
            "1",
            "stack",
            "create",
            "nobody",
            "-t",
            path,
            CONV_TASKS_BROKER_URL=backend,
        )
    finally:
        redis.Redis.from_url(backend).delete("conv_tasks")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1
    assert "is a worker running" in done.stderr
    assert "retry with --idempotency-key" in done.stderr  # the create may still happen
    assert "Traceback" not in done.stderr


def test_broker_down_is_one_line_exit_4(tmp_path: Path) -> None:
    done = run(tenant(), "stack", "list", CONV_TASKS_BROKER_URL="redis://127.0.0.1:1/0")
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("ERROR: cannot reach the broker at redis://127.0.0.1:1/0")
    assert "CONV_TASKS_BROKER_URL" in done.stderr


def test_database_down_is_one_line_exit_4() -> None:
    done = run(
        tenant(),
        "db",
        "upgrade",
        CONV_TASKS_DATABASE_URL="postgresql+psycopg://postgres:secret@127.0.0.1:1/nothing",
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1
    assert "cannot reach PostgreSQL" in done.stderr
    assert "secret" not in done.stderr


def test_wait_timeout_exits_5_and_says_how_to_follow(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"slow": test_resource("1", wait_secs=3)})
    done = run(who, "stack", "create", "slowpoke", "-t", path, "--wait", "--wait-timeout", "0.5")
    assert done.returncode == 5, done.stdout + done.stderr
    assert "conv-tasks stack events slowpoke --follow" in done.stderr
    assert "Traceback" not in done.stderr


def test_ctrl_c_during_wait_says_the_operation_goes_on(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"slow": test_resource("1", wait_secs=3)})
    child = subprocess.Popen(
        [CONV_TASKS, "stack", "create", "interrupted", "-t", path, "--wait"],
        env=cli_env(who),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    first = child.stdout.readline()  # the request was accepted: now it waits
    assert first.startswith("interrupted: CREATE_IN_PROGRESS"), first
    child.send_signal(signal.SIGINT)
    rest, err = child.communicate(timeout=60)
    assert child.returncode == 130, first + rest + err
    assert "Traceback" not in err
    assert "goes on in the background" in err
    assert "conv-tasks stack events interrupted --follow" in err
    assert "conv-tasks stack show interrupted" in err
    # And it did go on.
    final = Client(tenant=who, timeout=30).wait("interrupted", timeout=60)
    assert final["status"] == "CREATE_COMPLETE"


def test_delete_without_yes_and_no_terminal_is_refused(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"a": test_resource("1")})
    assert run(who, "stack", "create", "keep", "-t", path, "--wait").returncode == 0
    done = run(who, "stack", "delete", "keep")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pass --yes" in done.stderr
    assert Client(tenant=who, timeout=30).get("keep")["status"] == "CREATE_COMPLETE"
    done = run(who, "stack", "delete", "keep", "--yes", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("keep: DELETE_COMPLETE")


def test_help_documents_the_exit_codes() -> None:
    done = subprocess.run([CONV_TASKS, "--help"], capture_output=True, text=True, check=True)
    text = " ".join(done.stdout.split())
    for code in ("0 done", "1 the operation failed", "3 no worker answered", "130 interrupted"):
        assert code in text


def _delete_on_a_terminal(who: str, name: str, answer: str) -> subprocess.CompletedProcess[str]:
    """`stack delete NAME` with a terminal on stdin, answering its question with `answer`."""
    main, child_end = os.openpty()
    try:
        os.write(main, answer.encode() + b"\n")  # waits in the terminal until it is read
        return subprocess.run(
            [CONV_TASKS, "stack", "delete", name, "--wait"],
            env=cli_env(who),
            stdin=child_end,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.close(main)
        os.close(child_end)


def test_delete_on_a_terminal_asks_first(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"a": test_resource("1")})
    assert run(who, "stack", "create", "asked", "-t", path, "--wait").returncode == 0
    declined = _delete_on_a_terminal(who, "asked", "n")
    assert declined.returncode == 1, declined.stdout + declined.stderr
    assert "Delete stack asked and every resource in it?" in declined.stdout
    assert "stack asked not deleted" in declined.stderr
    assert Client(tenant=who, timeout=30).get("asked")["status"] == "CREATE_COMPLETE"
    accepted = _delete_on_a_terminal(who, "asked", "y")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert accepted.stdout.strip().splitlines()[-1].startswith("asked: DELETE_COMPLETE")
