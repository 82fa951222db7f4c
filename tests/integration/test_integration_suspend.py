"""Stack suspend and resume through real workers: the order each walks the resources in,
the refusals, what follows them (update, delete), and a software deployment that runs its
config on SUSPEND through the agent."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from deployment_agent import FakeAgent, inputs_of
from integration_support import resource_rows, sandbox_objects, template, test_resource

from conv_tasks.client import Client
from conv_tasks.errors import Conflict, ConvTasksError

# c uses b, b uses a; n stands alone.
CHAIN = template(
    {
        "a": test_resource("one"),
        "b": test_resource({"get_attr": ["a", "output"]}),
        "c": test_resource({"get_attr": ["b", "output"]}),
        "n": {"type": "OS::Heat::None"},
    }
)


def _completed(client: Client, stack_id: str, state: str, after: int) -> dict[str, int]:
    """Each resource's `state` event of the operation whose first event is `after`: its id."""
    return {
        str(e["resource_name"]): int(e["id"])
        for e in client.events(stack_id, after_id=after)
        if e["resource_name"] and e["status"] == state
    }


def _resource_states(client: Client, stack_id: str) -> dict[str, str]:
    return {r["name"]: r["status"] for r in client.resources(stack_id)}


def _last_event(client: Client, stack_id: str) -> int:
    return int(client.events(stack_id, latest=1)[-1]["id"])


def test_suspend_walks_dependants_first_and_resume_dependencies_first(client: Client) -> None:
    stack_id = client.create("sleepy", CHAIN)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    objects = {o.id for o in sandbox_objects(stack_id)}

    started = client.suspend("sleepy")
    assert started["action"] == "SUSPEND" and started["status"] == "SUSPEND_IN_PROGRESS"
    assert started["stack_id"] == stack_id and started["traversal"]
    assert client.wait(stack_id)["status"] == "SUSPEND_COMPLETE"
    suspended = _completed(client, stack_id, "SUSPEND_COMPLETE", started["event_id"])
    assert suspended.keys() == {"a", "b", "c", "n"}
    assert suspended["c"] < suspended["b"] < suspended["a"]
    assert set(_resource_states(client, stack_id).values()) == {"SUSPEND_COMPLETE"}

    resumed = client.resume("sleepy")
    assert resumed["status"] == "RESUME_IN_PROGRESS"
    assert client.wait(stack_id)["status"] == "RESUME_COMPLETE"
    order = _completed(client, stack_id, "RESUME_COMPLETE", resumed["event_id"])
    assert order.keys() == {"a", "b", "c", "n"}
    assert order["a"] < order["b"] < order["c"]
    assert set(_resource_states(client, stack_id).values()) == {"RESUME_COMPLETE"}
    # Neither touched a definition: the same objects, one version each.
    assert {o.id for o in sandbox_objects(stack_id)} == objects
    assert len(resource_rows(stack_id)) == 4

    changed = template({**CHAIN["resources"], "a": test_resource("two")})
    client.update(stack_id, changed)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    values = {o.properties["value"] for o in sandbox_objects(stack_id)}
    assert "two" in values

    history = client.history(stack_id)["operations"]
    assert [op["action"] for op in history] == ["UPDATE", "RESUME", "SUSPEND", "CREATE"]
    assert {op["result"] for op in history} == {"COMPLETE"}

    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    assert sandbox_objects(stack_id) == []


def test_refusals_name_the_stack_and_its_state_and_change_nothing(client: Client) -> None:
    stack_id = client.create("refused", CHAIN)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"

    with pytest.raises(Conflict, match=r"'refused' is CREATE_COMPLETE: only a suspended stack"):
        client.resume("refused")
    before = _last_event(client, stack_id)
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"

    client.suspend(stack_id)
    assert client.wait(stack_id)["status"] == "SUSPEND_COMPLETE"
    before = _last_event(client, stack_id)
    rows = [(r.id, r.action, r.status, r.atomic_key) for r in resource_rows(stack_id)]
    with pytest.raises(Conflict, match=r"'refused' is SUSPEND_COMPLETE: it is suspended already"):
        client.suspend("refused")
    with pytest.raises(Conflict, match="a suspended stack cannot be updated; resume it first"):
        client.update(stack_id, CHAIN)
    with pytest.raises(Conflict, match="a suspended stack cannot be checked"):
        client.check(stack_id)
    with pytest.raises(Conflict, match="a suspend or resume is not rolled back"):
        client.rollback(stack_id)
    assert _last_event(client, stack_id) == before
    assert client.get(stack_id)["status"] == "SUSPEND_COMPLETE"
    assert [(r.id, r.action, r.status, r.atomic_key) for r in resource_rows(stack_id)] == rows
    assert len(client.history(stack_id)["operations"]) == 2

    # A suspended stack is deleted like any other.
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    with pytest.raises(ConvTasksError):
        client.resume(stack_id)


def _deploy_template(server: str, actions: list[str]) -> dict[str, Any]:
    return template(
        {
            "host": test_resource(server),
            "config": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {"group": "script", "config": "#!/bin/sh\necho $deploy_action\n"},
            },
            "deploy": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": {"get_attr": ["host", "output"]},
                    "actions": actions,
                },
            },
            "after": {**test_resource("x"), "depends_on": ["deploy"]},
        }
    )


def test_a_deployment_runs_its_config_on_suspend_through_the_agent(client: Client) -> None:
    server = f"server-{uuid.uuid4().hex[:8]}"
    tmpl = _deploy_template(server, ["CREATE", "SUSPEND"])
    stack_id = client.create("deploy-suspend", tmpl)["stack_id"]
    agent = FakeAgent(server, client.deployment_credential(stack_id, server)["credential"])
    created = agent.wait_for("deploy", "CREATE")
    agent.signal(created, {"deploy_status": "COMPLETE", "deploy_stdout": "CREATE\n"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"

    started = client.suspend(stack_id)
    asked = agent.wait_for("deploy", "SUSPEND")
    assert inputs_of(asked)["deploy_action"] == "SUSPEND"
    assert client.get(stack_id)["status"] == "SUSPEND_IN_PROGRESS"
    states = _resource_states(client, stack_id)
    assert states["deploy"] == "SUSPEND_IN_PROGRESS" and states["after"] == "SUSPEND_COMPLETE"
    assert states["host"] == "CREATE_COMPLETE"  # waits for the deployment's suspend
    done = agent.signal(asked, {"deploy_status": "COMPLETE", "deploy_stdout": "SUSPEND\n"})
    assert done["ok"] and done["deploy_status"] == "COMPLETE"
    assert client.wait(stack_id, timeout=60)["status"] == "SUSPEND_COMPLETE"
    order = _completed(client, stack_id, "SUSPEND_COMPLETE", started["event_id"])
    assert order["after"] < order["deploy"] < order["host"]
    assert client.deployment(stack_id, "deploy")["status"] == "SUSPEND_COMPLETE"

    # RESUME is not among its actions: the deployment completes at once, asking nothing.
    client.resume(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "RESUME_COMPLETE"
    assert agent.metadata()["deployments"] == []
    assert _resource_states(client, stack_id)["deploy"] == "RESUME_COMPLETE"


def test_a_failed_deployment_suspend_fails_the_stack_and_may_be_tried_again(
    client: Client,
) -> None:
    server = f"server-{uuid.uuid4().hex[:8]}"
    tmpl = _deploy_template(server, ["CREATE", "SUSPEND", "RESUME"])
    stack_id = client.create("deploy-fails", tmpl)["stack_id"]
    agent = FakeAgent(server, client.deployment_credential(stack_id, server)["credential"])
    agent.signal(agent.wait_for("deploy", "CREATE"), {"deploy_status": "COMPLETE"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"

    client.suspend(stack_id)
    asked = agent.wait_for("deploy", "SUSPEND")
    agent.signal(asked, {"deploy_status": "FAILED", "deploy_status_reason": "no pause here"})
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "SUSPEND_FAILED", final
    assert "no pause here" in final["status_reason"]
    states = _resource_states(client, stack_id)
    assert states["deploy"] == "SUSPEND_FAILED" and states["host"] == "CREATE_COMPLETE"

    # Tried again: what is suspended already stays so; the deployment is asked anew.
    client.suspend(stack_id)
    again = agent.wait_for("deploy", "SUSPEND", where=lambda d: d["id"] == asked["id"])
    agent.signal(again, {"deploy_status": "COMPLETE"})
    assert client.wait(stack_id, timeout=60)["status"] == "SUSPEND_COMPLETE"

    client.resume(stack_id)
    resumed = agent.wait_for("deploy", "RESUME")
    agent.signal(resumed, {"deploy_status": "COMPLETE"})
    assert client.wait(stack_id, timeout=60)["status"] == "RESUME_COMPLETE"


def test_actions_refused_by_allowed_values_print_words(client: Client) -> None:
    tmpl = _deploy_template("srv", ["CREATE", "PAUSE"])
    with pytest.raises(ConvTasksError) as refused:
        client.create("deploy-pause", tmpl)
    said = str(refused.value) + repr(getattr(refused.value, "problems", ""))
    assert "resources.deploy.properties.actions[1]" in said
    assert "SUSPEND" in said and "RESUME" in said
    assert "<DeployAction" not in said and "DeployAction." not in said


def test_a_delete_stops_a_deployment_waiting_for_its_suspend(client: Client) -> None:
    server = f"server-{uuid.uuid4().hex[:8]}"
    tmpl = _deploy_template(server, ["CREATE", "SUSPEND"])
    stack_id = client.create("deploy-gone", tmpl)["stack_id"]
    agent = FakeAgent(server, client.deployment_credential(stack_id, server)["credential"])
    agent.signal(agent.wait_for("deploy", "CREATE"), {"deploy_status": "COMPLETE"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"

    client.suspend(stack_id)
    asked = agent.wait_for("deploy", "SUSPEND")
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    late = agent.signal(asked, {"deploy_status": "COMPLETE"})
    assert not late.get("ok") or late.get("duplicate") or late.get("ended"), late
    states = [e["status"] for e in client.events(stack_id) if e["resource_name"] == "deploy"]
    assert "SUSPEND_FAILED" in states and states[-1] == "DELETE_COMPLETE", states


def test_a_nested_stack_is_suspended_and_resumed_with_its_parent(client: Client) -> None:
    child = template({"a": test_resource("in"), "b": {**test_resource("in2"), "depends_on": ["a"]}})
    tmpl = template(
        {
            "inner": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}},
            "user": {**test_resource("u"), "depends_on": ["inner"]},
        }
    )
    stack_id = client.create("outer-sleep", tmpl)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child_id = next(r for r in client.resources(stack_id) if r["name"] == "inner")["physical_id"]
    with pytest.raises(Conflict, match="nested"):
        client.suspend(child_id)  # only through its parent

    started = client.suspend(stack_id)
    assert client.wait(stack_id)["status"] == "SUSPEND_COMPLETE"
    assert client.get(child_id)["status"] == "SUSPEND_COMPLETE"
    inner = [
        e
        for e in client.events(child_id)
        if e["resource_name"] and e["status"] == "SUSPEND_COMPLETE"
    ]
    assert [e["resource_name"] for e in inner] == ["b", "a"]
    order = _completed(client, stack_id, "SUSPEND_COMPLETE", started["event_id"])
    assert order["user"] < order["inner"]

    client.resume(stack_id)
    assert client.wait(stack_id)["status"] == "RESUME_COMPLETE"
    assert client.get(child_id)["status"] == "RESUME_COMPLETE"
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
