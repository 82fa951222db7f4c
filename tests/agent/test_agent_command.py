"""`conv-tasks agent` itself, with the engine replaced by a fake (no services)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agent_fakes import SERVER_CREDENTIAL, FakeServer, deployment_entry
from click.testing import CliRunner

from conv_tasks.agent import link
from conv_tasks.agent.command import EXIT_NOT_AUTHORIZED
from conv_tasks.cli.main import cli


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer(
        [deployment_entry("d1", config="#!/bin/sh\necho ran\n", aware=True)],
    )
    monkeypatch.setattr(link, "CeleryServerLink", lambda app_factory, timeout: fake)
    return fake


def _invoke(args: list[str], env: dict[str, Any] | None = None) -> Any:
    return CliRunner().invoke(cli, ["agent", "--broker", *args], env=env, catch_exceptions=False)


def test_once_runs_what_is_pending_and_exits_zero(server: FakeServer, tmp_path: Path) -> None:
    cred = tmp_path / "cred"
    cred.write_text(SERVER_CREDENTIAL)
    args = ["--server", "srv-1", "--credential-file", str(cred), "--state-dir", str(tmp_path / "s")]
    result = _invoke([*args, "--once"])
    assert result.exit_code == 0, result.output
    assert server.statuses() == [("d1", "IN_PROGRESS"), ("d1", "COMPLETE")]
    assert _invoke([*args, "--once"]).exit_code == 0
    assert len(server.signals) == 2


def test_once_with_a_refused_credential_exits_nonzero(server: FakeServer, tmp_path: Path) -> None:
    result = _invoke(
        ["--server", "srv-1", "--state-dir", str(tmp_path / "s"), "--once"],
        env={"CONV_TASKS_AGENT_CREDENTIAL": "wrong"},
    )
    assert result.exit_code == EXIT_NOT_AUTHORIZED
    assert "wrong" not in result.output
    assert server.signals == []


def test_once_with_the_engine_unreachable_exits_one(server: FakeServer, tmp_path: Path) -> None:
    server.down = True
    result = _invoke(
        ["--server", "srv-1", "--state-dir", str(tmp_path / "s"), "--once"],
        env={"CONV_TASKS_AGENT_CREDENTIAL": SERVER_CREDENTIAL},
    )
    assert result.exit_code == 1


def test_legacy_signals_flag(server: FakeServer, tmp_path: Path) -> None:
    _invoke(
        ["--server", "srv-1", "--state-dir", str(tmp_path / "s"), "--once", "--legacy-signals"],
        env={"CONV_TASKS_AGENT_CREDENTIAL": SERVER_CREDENTIAL},
    )
    assert server.statuses() == [("d1", None)]


def test_no_credential_is_a_usage_error(server: FakeServer, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["agent", "--broker", "--server", "srv-1", "--state-dir", str(tmp_path / "s"), "--once"],
        env={"CONV_TASKS_AGENT_CREDENTIAL": ""},
    )
    assert result.exit_code == 2
    assert "conv-tasks deployment credential" in result.output


def test_one_state_directory_serves_one_agent(server: FakeServer, tmp_path: Path) -> None:
    state = tmp_path / "s"
    state.mkdir()
    with open(state / "agent.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = CliRunner().invoke(
            cli,
            ["agent", "--broker", "--server", "srv-1", "--state-dir", str(state), "--once"],
            env={"CONV_TASKS_AGENT_CREDENTIAL": SERVER_CREDENTIAL},
        )
    assert result.exit_code == 1
    assert "another agent is using the state directory" in result.output
    assert server.signals == []


def test_an_unreachable_engine_costs_one_log_line_not_a_traceback_loop(tmp_path: Path) -> None:
    """A real agent process whose broker and result backend refuse connections."""
    cred = tmp_path / "cred"
    cred.write_text(SERVER_CREDENTIAL)
    env = {
        **os.environ,
        "CONV_TASKS_BROKER_URL": "redis://127.0.0.1:1/0",
        "CONV_TASKS_RESULT_BACKEND": "redis://127.0.0.1:1/1",
    }
    command = [
        sys.executable, "-c", "from conv_tasks.cli.main import main; main()",
        "agent", "--broker", "--server", "srv-1", "--credential-file", str(cred),
        "--state-dir", str(tmp_path / "s"), "--interval", "0.2",
    ]  # fmt: skip
    proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    time.sleep(4)  # several polls
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    lines = stderr.strip().splitlines()
    assert [line for line in lines if "WARNING" in line and "cannot reach the engine" in line]
    assert len([line for line in lines if "WARNING" in line or "ERROR" in line]) == 1, stderr
    assert "Traceback" not in stderr
    assert SERVER_CREDENTIAL not in stderr
    assert lines[-1].endswith("agent stopped")
