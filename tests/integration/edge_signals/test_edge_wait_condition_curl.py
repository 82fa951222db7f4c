"""A host signals a wait condition with Heat's curl command, against the HTTP edge: nothing on
the host but curl and the handle's token (no conv-tasks, no broker settings)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from edge_cluster import BROKER_NOTE, EdgeCluster, edge_cluster
from sqlalchemy import select

from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope

pytestmark = pytest.mark.broker("redis", reason=BROKER_NOTE)

SCRIPT = 'wc_notify --data-binary \'{"status": "SUCCESS", "reason": "booted", "data": "ok"}\''


@pytest.fixture(scope="module")
def cluster(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeCluster]:
    root = tmp_path_factory.mktemp("edge-curl")
    with edge_cluster(database_url, root, name="edgecurl") as running:
        yield running


def template(script: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "handle": {"type": "OS::Heat::WaitConditionHandle"},
            # The host: what a server's user data would get.
            "host": {
                "type": "OS::Heat::TestResource",
                "properties": {
                    "value": {
                        "str_replace": {
                            "template": script,
                            "params": {"wc_notify": {"get_attr": ["handle", "curl_cli"]}},
                        }
                    }
                },
            },
            "wait": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "handle"}, "timeout": 120},
            },
        },
        "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
    }


def host_script(cluster: EdgeCluster, stack_id: str, timeout: float = 30) -> str:
    """The script the host was handed (the sandbox keeps the TestResource's value)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with session_scope(cluster.database_url) as session:
            rows = session.scalars(
                select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%"))
            )
            for row in rows:
                value = row.properties.get("value")
                if isinstance(value, str) and value.startswith("curl "):
                    return value
        time.sleep(0.2)
    raise AssertionError("the host never got the handle's curl_cli")


def run_on_host(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # A host's environment: curl on the PATH, nothing of conv_tasks.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    return subprocess.run(
        ["/bin/sh", "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def test_a_script_that_runs_curl_cli_completes_the_wait(
    cluster: EdgeCluster, tmp_path: Path
) -> None:
    client = cluster.client()
    stack_id = client.create("curl-wait", template(SCRIPT))["stack_id"]
    script = host_script(cluster, stack_id)
    assert script.startswith("curl -i -X POST -H 'X-Auth-Token: ")
    assert f"{cluster.url}/signal/v1/wait_condition_handles/" in script
    done = run_on_host(script, tmp_path)
    assert done.returncode == 0, done.stderr
    status_line = done.stdout.splitlines()[0]
    assert status_line.split()[1] == "200", done.stdout
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert json.loads(client.outputs(stack_id)["data"]["value"]) == {"1": "ok"}
    # The token never reaches the edge's log, nor the workers'.
    token = script.split("X-Auth-Token: ", 1)[1].split("'", 1)[0]
    assert token not in cluster.logs()


def test_a_wrong_token_is_403_and_changes_nothing(cluster: EdgeCluster, tmp_path: Path) -> None:
    client = cluster.client()
    stack_id = client.create("curl-wrong", template(SCRIPT))["stack_id"]
    script = host_script(cluster, stack_id)
    token = script.split("X-Auth-Token: ", 1)[1].split("'", 1)[0]
    forged = script.replace(token, "not-the-token")
    done = run_on_host(forged, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split()[1] == "403", done.stdout
    body = json.loads(done.stdout.split("\n\n", 1)[1])  # after curl -i's headers
    assert body["code"] == 403 and body["error"]["message"]
    time.sleep(1.0)  # the wait polls: it must still be waiting for its one signal
    stack = client.get(stack_id)
    assert stack["status"] == "CREATE_IN_PROGRESS"
    wait = [r for r in client.resources(stack_id) if r["name"] == "wait"]
    assert wait and wait[0]["status"] == "CREATE_IN_PROGRESS"
    # The real script then completes it: the forged signal was not counted.
    assert run_on_host(script, tmp_path).returncode == 0
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert json.loads(client.outputs(stack_id)["data"]["value"]) == {"1": "ok"}
