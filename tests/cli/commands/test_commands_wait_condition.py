"""`conv-tasks wait-condition signal`: a host runs the handle's curl_cli as Heat's users do."""

from __future__ import annotations

import json
import os
import subprocess
import time
from typing import Any

from cli_process import CONV_TASKS, cli_env, run, tenant, test_resource

from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope


def _host_value(stack_id: str, marker: str, timeout: float = 30.0) -> str:
    from sqlalchemy import select

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with session_scope() as session:
            stmt = select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%"))
            for obj in session.scalars(stmt):
                value = obj.properties.get("value")
                if isinstance(value, str) and marker in value:
                    return value
        time.sleep(0.2)
    raise AssertionError("the host never got the handle's curl_cli")


def test_curl_cli_with_data_binary_signals_the_handle(workers: Any) -> None:
    name = tenant()
    client = Client(tenant=name, timeout=30)
    template: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "handle": {"type": "OS::Heat::WaitConditionHandle"},
            "host": test_resource(
                {
                    "str_replace": {
                        "template": 'wc_notify --data-binary \'{"status": "SUCCESS"}\'',
                        "params": {"wc_notify": {"get_attr": ["handle", "curl_cli"]}},
                    }
                }
            ),
            "wait": {
                "type": "OS::Heat::WaitCondition",
                "properties": {"handle": {"get_resource": "handle"}, "timeout": 120},
            },
        },
        "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
    }
    stack_id = client.create("wait-cli", template)["stack_id"]
    command = _host_value(stack_id, "conv-tasks wait-condition signal")
    token = command.split("--token ", 1)[1].split()[0]
    env = cli_env(name, PATH=f"{os.path.dirname(CONV_TASKS)}:{os.environ.get('PATH', '')}")
    done = subprocess.run(
        ["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Signal: status:SUCCESS reason:Signal 1 received"
    assert token not in done.stdout + done.stderr
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert json.loads(client.outputs(stack_id)["data"]["value"]) == {"1": None}


def test_single_fields_and_a_wrong_token(workers: Any) -> None:
    name = tenant()
    client = Client(tenant=name, timeout=30)
    template: dict[str, Any] = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "handle": {"type": "OS::Heat::WaitConditionHandle"},
            "host": test_resource({"get_attr": ["handle", "signal"]}),
        },
    }
    stack_id = client.create("wait-cli-fields", template)["stack_id"]
    given = json.loads(_host_value(stack_id, "conv_tasks.wait_condition.signal"))
    wrong = run(name, "wait-condition", "signal", given["handle"], "--token", "nope")
    assert wrong.returncode != 0
    assert "token does not match" in wrong.stderr
    sent = run(
        name,
        "--json",
        "wait-condition",
        "signal",
        given["handle"],
        "--token",
        given["token"],
        "--status",
        "FAILURE",
        "--reason",
        "broken",
        "--data",
        '{"k": 1}',
        "--id",
        "h1",
    )
    assert sent.returncode == 0, sent.stderr
    answer = json.loads(sent.stdout)
    assert answer["id"] == "h1" and answer["status"] == "FAILURE"
    bad = run(name, "wait-condition", "signal", given["handle"], "--token", "t", "--data", "{")
    assert bad.returncode != 0 and "--data is not JSON" in bad.stderr
