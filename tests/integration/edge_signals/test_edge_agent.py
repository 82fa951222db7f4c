"""The reference agent reaches the engine through the HTTP edge with nothing but its server's
credential: no broker, no result backend, no conv_tasks setting in its environment."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from edge_cluster import BROKER_NOTE, EdgeCluster, edge_cluster

from conv_tasks.agent.command import EXIT_NOT_AUTHORIZED

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)

SCRIPT = """#!/bin/sh
printf '%s' "$greeting from $deploy_server_id" > "$heat_outputs_path.result"
"""


@pytest.fixture(scope="module")
def cluster(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeCluster]:
    root = tmp_path_factory.mktemp("edge-agent")
    with edge_cluster(database_url, root, name="edgeagent") as running:
        yield running


def template() -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"server": {"type": "string"}},
        "resources": {
            "config": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {
                    "group": "script",
                    "config": SCRIPT,
                    "inputs": [{"name": "greeting"}],
                    "outputs": [{"name": "result"}],
                },
            },
            "deployment": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": {"get_param": "server"},
                    "input_values": {"greeting": "hello"},
                },
            },
        },
        "outputs": {"result": {"value": {"get_attr": ["deployment", "result"]}}},
    }


def agent_once(
    cluster: EdgeCluster, server: str, credential_file: Path, state: Path
) -> subprocess.CompletedProcess[str]:
    """`conv-tasks agent --url EDGE --once`, as on a host: no CONV_TASKS_* but what it needs."""
    command = [
        sys.executable, "-c", "from conv_tasks.cli.main import main; main()",
        "agent", "--url", cluster.url, "--server", server,
        "--credential-file", str(credential_file), "--state-dir", str(state), "--once",
    ]  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(state.parent), "LANG": "C.UTF-8"}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def test_the_agent_runs_a_deployment_through_the_edge_alone(
    cluster: EdgeCluster, tmp_path: Path
) -> None:
    client = cluster.client()
    server = f"srv-{uuid.uuid4().hex[:8]}"
    stack_id = client.create("agent-http", template(), {"server": server})["stack_id"]
    credential = client.deployment_credential(stack_id, server)["credential"]
    credential_file = tmp_path / "credential"
    credential_file.write_text(credential + "\n")
    deadline = time.monotonic() + 60
    while client.get(stack_id)["status"] == "CREATE_IN_PROGRESS":
        assert time.monotonic() < deadline, "the deployment never completed"
        done = agent_once(cluster, server, credential_file, tmp_path / "state")
        assert done.returncode == 0, done.stderr
        assert credential not in done.stdout + done.stderr
        time.sleep(0.3)
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"
    assert client.outputs(stack_id)["result"]["value"] == f"hello from {server}"
    assert credential not in cluster.logs()


def test_a_wrong_credential_is_refused_and_runs_nothing(
    cluster: EdgeCluster, tmp_path: Path
) -> None:
    client = cluster.client()
    server = f"srv-{uuid.uuid4().hex[:8]}"
    stack_id = client.create("agent-wrong", template(), {"server": server})["stack_id"]
    client.deployment_credential(stack_id, server)
    wrong = tmp_path / "credential"
    wrong.write_text("not-the-credential\n")
    done = agent_once(cluster, server, wrong, tmp_path / "state")
    assert done.returncode == EXIT_NOT_AUTHORIZED, done.stderr
    assert "not-the-credential" not in done.stdout + done.stderr
    deployment = client.deployment(stack_id, "deployment")
    assert deployment["status"].endswith("_IN_PROGRESS")
    assert client.get(stack_id)["status"] == "CREATE_IN_PROGRESS"
    client.delete(stack_id)
