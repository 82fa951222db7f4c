"""The reference agent as a real process, against real workers: seed 002 end to end.

Each test gives its stack a server id of its own, so its agent sees only its
deployments. The agent runs `conv-tasks agent` exactly as on a host, with the
run's broker and result backend from the environment.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from integration_support import template, test_resource

from conv_tasks.client import Client

SCRIPT = """#!/bin/sh
echo run >> "$marker"
echo "deploying $greeting"
sleep "$pause"
printf '%s' "$greeting from $deploy_server_id" > "$heat_outputs_path.result"
"""


def _stack(script: str = SCRIPT, **input_values: Any) -> dict[str, Any]:
    return template(
        {
            "config": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {
                    "group": "script",
                    "config": script,
                    "inputs": [{"name": "greeting"}],
                    "outputs": [{"name": "result"}],
                },
            },
            "deployment": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": {"get_param": "server"},
                    "input_values": {"greeting": "hello", "pause": "0.5", **input_values},
                },
            },
            "after": test_resource({"get_attr": ["deployment", "result"]}),
        },
        parameters={"server": {"type": "string"}},
        outputs={"result": {"value": {"get_attr": ["deployment", "result"]}}},
    )


class AgentProcess:
    """`conv-tasks agent` for one server, in a session of its own (killed with its scripts)."""

    def __init__(self, root: Path, server: str, credential: str) -> None:
        self.root, self.server = root, server
        root.mkdir(parents=True, exist_ok=True)
        self.credential_file = root / "credential"
        self.credential_file.write_text(credential + "\n")
        self.state_dir = root / "state"
        self.log = root / "agent.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self, *extra: str) -> list[str]:
        return [
            sys.executable,
            "-c",
            "from conv_tasks.cli.main import main; main()",
            "agent",
            "--broker",
            "--server", self.server,
            "--credential-file", str(self.credential_file),
            "--state-dir", str(self.state_dir),
            *extra,
        ]  # fmt: skip

    def start(self, *extra: str) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                self.command("--interval", "0.3", *extra),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def once(self, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command("--once", *extra), capture_output=True, text=True, timeout=60
        )

    def kill(self) -> None:
        """SIGKILL the agent and whatever it runs, as a host that dies would."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc = None

    def log_text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""


@pytest.fixture
def agent_for(client: Client, tmp_path: Path) -> Iterator[Any]:
    """agent_for(stack_id, server): an agent holding the server's credential for that stack."""
    started: list[AgentProcess] = []

    def make(stack_id: str, server: str) -> AgentProcess:
        answer = client.call("conv_tasks.deployment.credential", stack=stack_id, server=server)
        agent = AgentProcess(tmp_path / f"agent-{len(started)}", server, answer["credential"])
        started.append(agent)
        return agent

    yield make
    for agent in started:
        agent.stop()
        text = agent.log_text()
        assert agent.credential_file.read_text().strip() not in text, "credential in the log"


def _signals(client: Client, stack_id: str) -> list[tuple[str, str]]:
    return [
        (e["status"], e["reason"])
        for e in client.events(stack_id)
        if e["action"] == "SIGNAL" and e["resource_name"] == "deployment"
    ]


def _wait_for(path: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


def test_agent_signals_in_progress_before_complete_and_outputs_flow(
    client: Client, agent_for: Any, tmp_path: Path
) -> None:
    server = f"srv-{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "runs"
    created = client.create("agent", _stack(marker=str(marker)), {"server": server})
    agent = agent_for(created["stack_id"], server)
    agent.start()
    final = client.wait(created["stack_id"], timeout=90)
    assert final["status"] == "CREATE_COMPLETE", final
    statuses = [status for status, _ in _signals(client, created["stack_id"])]
    assert statuses == ["SIGNAL_IN_PROGRESS", "SIGNAL_COMPLETE"]
    in_progress_reason = _signals(client, created["stack_id"])[0][1]
    assert server in in_progress_reason
    assert client.outputs(created["stack_id"])["result"]["value"] == f"hello from {server}"
    after = {r["name"]: r for r in client.resources(created["stack_id"])}["after"]
    assert after["status"] == "CREATE_COMPLETE"
    assert marker.read_text() == "run\n"
    # An update of the inputs is a new run; the agent already running takes it.
    client.update(
        created["stack_id"],
        _stack(marker=str(marker), greeting="bonjour"),
        existing_parameters=True,
    )
    assert client.wait(created["stack_id"], timeout=90)["status"] == "UPDATE_COMPLETE"
    assert client.outputs(created["stack_id"])["result"]["value"] == f"bonjour from {server}"
    assert marker.read_text() == "run\nrun\n"


def test_old_agent_without_in_progress_still_completes(
    client: Client, agent_for: Any, tmp_path: Path
) -> None:
    server = f"srv-{uuid.uuid4().hex[:8]}"
    created = client.create("old-agent", _stack(marker=str(tmp_path / "m")), {"server": server})
    agent = agent_for(created["stack_id"], server)
    agent.start("--legacy-signals")
    assert client.wait(created["stack_id"], timeout=90)["status"] == "CREATE_COMPLETE"
    assert [s for s, _ in _signals(client, created["stack_id"])] == ["SIGNAL_COMPLETE"]
    assert client.outputs(created["stack_id"])["result"]["value"] == f"hello from {server}"


def test_failing_script_fails_the_deployment_with_its_reason(
    client: Client, agent_for: Any
) -> None:
    server = f"srv-{uuid.uuid4().hex[:8]}"
    script = "#!/bin/sh\necho 'cannot install nginx' >&2\nexit 3\n"
    created = client.create("agent-fail", _stack(script), {"server": server}, disable_rollback=True)
    agent = agent_for(created["stack_id"], server)
    result = agent.once()
    assert result.returncode == 0, result.stderr
    final = client.wait(created["stack_id"], timeout=90)
    assert final["status"] == "CREATE_FAILED"
    deployment = {r["name"]: r for r in client.resources(created["stack_id"])}["deployment"]
    assert "exited with status 3: cannot install nginx" in deployment["status_reason"]


def test_agent_restarted_mid_script_reports_it_interrupted_and_never_runs_it_twice(
    client: Client, agent_for: Any, tmp_path: Path
) -> None:
    server = f"srv-{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "runs"
    created = client.create(
        "agent-restart",
        _stack(marker=str(marker), pause="60"),
        {"server": server},
        disable_rollback=True,
    )
    agent = agent_for(created["stack_id"], server)
    agent.start()
    _wait_for(marker)  # the script is running
    agent.kill()
    agent.start()
    final = client.wait(created["stack_id"], timeout=90)
    assert final["status"] == "CREATE_FAILED"
    assert marker.read_text() == "run\n"  # run once, never again
    signals_seen = _signals(client, created["stack_id"])
    assert [s for s, _ in signals_seen] == ["SIGNAL_IN_PROGRESS", "SIGNAL_FAILED"]
    assert "the agent was interrupted while running this deployment" in signals_seen[1][1]
    assert "was interrupted" in agent.log_text()


def test_a_refused_credential_makes_once_exit_nonzero(client: Client, agent_for: Any) -> None:
    server = f"srv-{uuid.uuid4().hex[:8]}"
    created = client.create("agent-refused", _stack(), {"server": server})
    agent = agent_for(created["stack_id"], server)
    agent.credential_file.write_text("not-the-credential\n")
    result = agent.once()
    assert result.returncode == 3
    assert "not_authorized" in result.stderr
    assert "not-the-credential" not in result.stderr
    client.delete(created["stack_id"])
    assert client.wait(created["stack_id"], timeout=90)["status"] == "DELETE_COMPLETE"


def test_agent_runs_the_delete_action_when_asked(
    client: Client, agent_for: Any, tmp_path: Path
) -> None:
    server = f"srv-{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "runs"
    script = '#!/bin/sh\necho "$deploy_action" >> "$marker"\n'
    tmpl = _stack(script, marker=str(marker))
    tmpl["resources"]["deployment"]["properties"]["actions"] = ["CREATE", "UPDATE", "DELETE"]
    created = client.create("agent-delete", tmpl, {"server": server})
    agent = agent_for(created["stack_id"], server)
    agent.start()
    assert client.wait(created["stack_id"], timeout=90)["status"] == "CREATE_COMPLETE"
    client.delete(created["stack_id"])
    assert client.wait(created["stack_id"], timeout=90)["status"] == "DELETE_COMPLETE"
    assert marker.read_text() == "CREATE\nDELETE\n"
