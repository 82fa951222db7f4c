"""Hidden values at rest (issue 22): with CONV_TASKS_ENCRYPTION_KEYS set (the suite always sets
it), a `pg_dump` of the database holds none of a stack's hidden parameter values, nor what
derives from them (a nested stack's inherited parameters, a software deployment's config and
input values), nor a wait condition handle's token; while reads, masked as before, and an
update still work."""

from __future__ import annotations

import json
import subprocess
import uuid
from typing import Any

from integration_support import resource_rows
from sqlalchemy.engine import make_url

from conv_tasks.client import Client
from conv_tasks.secrets_at_rest import ENVELOPE_PREFIX
from conv_tasks.settings import get_settings

MASK = "******"

CHILD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"secret": {"type": "string"}},
    "resources": {
        "copy": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "secret"}}}
    },
    "outputs": {"echo": {"value": {"get_attr": ["copy", "value"]}}},
}


def _template() -> dict[str, Any]:
    with_password = {"PW": {"get_param": "db_password"}}
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "db_password": {"type": "string", "hidden": True},
            "api_token": {"type": "string", "hidden": True, "default": "unset"},
            "label": {"type": "string"},
        },
        "resources": {
            "dsn": {
                "type": "OS::Heat::Value",
                "properties": {
                    "value": {
                        "str_replace": {
                            "template": "postgres://app:PW@db/app",
                            "params": with_password,
                        }
                    }
                },
            },
            "token_user": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_param": "api_token"}},
            },
            "plain": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "label"}}},
            "child": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "template": json.dumps(CHILD),
                    "parameters": {"secret": {"get_param": "db_password"}},
                },
            },
            "handle": {"type": "OS::Heat::WaitConditionHandle"},
            "config": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {
                    "group": "script",
                    "config": {
                        "str_replace": {
                            "template": "#!/bin/sh\nlogin PW\n",
                            "params": with_password,
                        }
                    },
                    "inputs": [{"name": "pw"}],
                },
            },
            "deploy": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": f"server-{uuid.uuid4().hex[:8]}",
                    "input_values": {"pw": {"get_param": "db_password"}},
                    "actions": [],  # published, not awaited: no agent needed
                },
            },
        },
        "outputs": {
            "dsn": {"value": {"get_attr": ["dsn", "value"]}},
            "label": {"value": {"get_attr": ["plain", "value"]}},
            "token": {"value": {"get_attr": ["handle", "token"]}},
            "child_echo": {"value": {"get_attr": ["child", "outputs", "echo"]}},
        },
    }


def pg_dump() -> str:
    """The whole test database as `pg_dump` writes it (schema and data)."""
    url = make_url(get_settings().database_url)
    command = ["pg_dump", "--host", url.host or "127.0.0.1", "--port", str(url.port or 5432)]
    command += ["--username", url.username or "postgres", "--no-password", url.database or ""]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _secret(what: str) -> str:
    return f"{what}-{uuid.uuid4().hex}"


def _handle_token(stack_id: str) -> str:
    [handle] = [r for r in resource_rows(stack_id) if r.name == "handle" and r.replaced_by is None]
    token = json.dumps(handle.attr_data)  # opened with the run's key (integration_support)
    found = [value for value in _strings(handle.attr_data) if len(value) >= 20]
    assert found, token
    return max(found, key=len)


def _strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for value in data.values() for s in _strings(value)]
    if isinstance(data, list):
        return [s for value in data for s in _strings(value)]
    return []


def test_a_dump_holds_no_hidden_value_while_reads_and_updates_work(client: Client) -> None:
    password, api_token, label = _secret("pw"), _secret("tok"), _secret("label")
    name = f"secrets-{uuid.uuid4().hex[:8]}"
    created = client.create(
        name, _template(), {"db_password": password, "api_token": api_token, "label": label}
    )
    stack_id = created["stack_id"]
    shown = client.wait(stack_id, timeout=120)
    assert shown["status"] == "CREATE_COMPLETE", shown.get("status_reason")

    # Reads answer as before: hidden values masked, the others as they are.
    outputs = {key: shown["value"] for key, shown in client.outputs(stack_id).items()}
    assert outputs["label"] == label
    assert outputs["dsn"] == MASK and outputs["token"] == MASK and outputs["child_echo"] == MASK
    parameters = client.get(stack_id)["parameters"]
    assert parameters["label"] == label
    assert parameters["db_password"] == MASK and parameters["api_token"] == MASK
    [deployment] = client.deployments(stack_id)
    assert password not in json.dumps(deployment)

    token = _handle_token(stack_id)
    dump = pg_dump()
    # The dump holds this stack (its row, and sealed values), and none of its secrets.
    assert name in dump and stack_id in dump
    for secret in (password, api_token, label, token):
        assert secret not in dump
    assert ENVELOPE_PREFIX in dump

    # An update (new hidden value) converges and reads back through the sealed rows.
    new_password, new_label = _secret("pw2"), _secret("label2")
    client.update(
        stack_id,
        _template(),
        {"db_password": new_password, "api_token": api_token, "label": new_label},
    )
    shown = client.wait(stack_id, timeout=120)
    assert shown["status"] == "UPDATE_COMPLETE", shown.get("status_reason")
    outputs = {key: shown["value"] for key, shown in client.outputs(stack_id).items()}
    assert outputs["label"] == new_label and outputs["dsn"] == MASK
    dump = pg_dump()
    for secret in (password, new_password, api_token, new_label):
        assert secret not in dump
