"""OS::Heat::SoftwareDeploymentGroup through real workers, with a stand-in agent per server:
one member deployment per key of `servers`, in the group's child stack."""

from __future__ import annotations

import time
import uuid
from typing import Any

from deployment_agent import FakeAgent, inputs_of
from integration_support import template
from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import SoftwareDeploymentRow, Stack
from conv_tasks.db.session import session_scope


def _template(servers: dict[str, str], actions: list[str], foo: str = "bar") -> dict[str, Any]:
    return template(
        {
            "config": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {"group": "script", "config": "#!/bin/sh\necho $deploy_action\n"},
            },
            "deploy": {
                "type": "OS::Heat::SoftwareDeploymentGroup",
                "properties": {
                    "config": {"get_resource": "config"},
                    "servers": servers,
                    "input_values": {"foo": foo},
                    "actions": actions,
                },
            },
        },
        outputs={
            "codes": {"value": {"get_attr": ["deploy", "deploy_status_codes"]}},
            "stdouts": {"value": {"get_attr": ["deploy", "deploy_stdouts"]}},
        },
    )


def _child_id(stack_id: str, timeout: float = 30.0) -> str:
    """The group's child stack, once its create has started."""
    deadline = time.monotonic() + timeout
    while True:
        with session_scope() as session:
            stmt = select(Stack.id).where(
                Stack.parent_stack_id == stack_id, Stack.deleted_at.is_(None)
            )
            found = list(session.scalars(stmt))
        if found:
            return str(found[0])
        assert time.monotonic() < deadline, "the group's child stack never appeared"
        time.sleep(0.2)


def _deployment_names(child_id: str) -> list[str]:
    with session_scope() as session:
        stmt = select(SoftwareDeploymentRow.resource_name).where(
            SoftwareDeploymentRow.stack_id == child_id
        )
        return sorted(session.scalars(stmt))


def _start(client: Client, name: str, actions: list[str]) -> tuple[str, str, dict[str, FakeAgent]]:
    servers = {key: f"server-{key}-{uuid.uuid4().hex[:8]}" for key in ("web", "db")}
    stack_id = client.create(name, _template(servers, actions))["stack_id"]
    child_id = _child_id(stack_id)
    agents = {
        key: FakeAgent(server, client.deployment_credential(child_id, server)["credential"])
        for key, server in servers.items()
    }
    for key, agent in agents.items():
        asked = agent.wait_for(key, "CREATE")
        assert inputs_of(asked)["foo"] == "bar"
        assert inputs_of(asked)["deploy_server_id"] == agent.server
        agent.signal(
            asked,
            {"deploy_status": "COMPLETE", "deploy_stdout": f"{key}\n", "deploy_status_code": 0},
        )
    created = client.wait(stack_id, timeout=60)
    assert created["status"] == "CREATE_COMPLETE", [
        e.get("reason") or e.get("status_reason") for e in client.events(stack_id)
    ]
    return stack_id, child_id, agents


def test_a_member_per_server_runs_once_an_input_updates_each_and_a_removed_key_goes(
    client: Client,
) -> None:
    stack_id, child_id, agents = _start(client, "deploy-group", ["CREATE", "UPDATE"])
    outputs = {k: o["value"] for k, o in client.outputs(stack_id).items()}
    assert outputs["codes"] == {"web": 0, "db": 0}
    assert outputs["stdouts"] == {"web": "web\n", "db": "db\n"}
    assert _deployment_names(child_id) == ["db", "web"]
    for agent in agents.values():  # each ran once: nothing more waits for either server
        assert agent.metadata()["deployments"] == []

    # A changed input updates every member: each server runs UPDATE once.
    servers = {key: agent.server for key, agent in agents.items()}
    client.update(stack_id, _template(servers, ["CREATE", "UPDATE"], foo="baz"))
    for key, agent in agents.items():
        asked = agent.wait_for(key, "UPDATE")
        assert inputs_of(asked)["foo"] == "baz"
        agent.signal(asked, {"deploy_status": "COMPLETE", "deploy_status_code": 0})
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"

    # Only web is left: db's deployment goes, web's is unchanged and asks its server nothing.
    servers = {"web": agents["web"].server}
    client.update(stack_id, _template(servers, ["CREATE", "UPDATE"], foo="baz"))
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"
    assert _deployment_names(child_id) == ["web"]
    assert agents["web"].metadata()["deployments"] == []
    outputs = {k: o["value"] for k, o in client.outputs(stack_id).items()}
    assert outputs["codes"] == {"web": 0}


def test_a_suspend_runs_every_members_config(client: Client) -> None:
    stack_id, _, agents = _start(client, "deploy-group-suspend", ["CREATE", "SUSPEND"])
    client.suspend(stack_id)
    for key, agent in agents.items():
        asked = agent.wait_for(key, "SUSPEND")
        assert inputs_of(asked)["deploy_action"] == "SUSPEND"
        agent.signal(asked, {"deploy_status": "COMPLETE"})
    assert client.wait(stack_id, timeout=60)["status"] == "SUSPEND_COMPLETE"
