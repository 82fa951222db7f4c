"""Software deployments (seed 002) through real workers, with a stand-in agent.

The agent reads its server's deployments with the credential the stack's
owner got for it, signals IN_PROGRESS and then COMPLETE or FAILED; the
deployment resource waits for that by polling and hands the outputs on.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from deployment_agent import FakeAgent, inputs_of
from integration_support import resource_rows, sandbox_objects, template, test_resource
from sealed_rows import opened
from sqlalchemy import func, select

from conv_tasks.client import Client
from conv_tasks.db.models import Event, ServerCredential, SoftwareConfigRow, SoftwareDeploymentRow
from conv_tasks.db.sealed_columns import sealed
from conv_tasks.db.session import session_scope
from conv_tasks.errors import Conflict, NotFound
from conv_tasks.settings import get_settings

SCRIPT = "#!/bin/sh\necho hello\n"


def _template(server: str, *, foo: str = "bar", **deploy: Any) -> dict[str, Any]:
    """A config run on `server` (reached through get_attr of a resource), a resource that
    uses the deployment's output, and stack outputs that show it."""
    return template(
        {
            "host": test_resource(server),
            "config": {
                "type": "OS::Heat::SoftwareConfig",
                "properties": {
                    "group": "script",
                    "config": SCRIPT,
                    "inputs": [{"name": "foo"}],
                    "outputs": [{"name": "result"}, {"name": "problem", "error_output": True}],
                },
            },
            "deploy": {
                "type": "OS::Heat::SoftwareDeployment",
                "properties": {
                    "config": {"get_resource": "config"},
                    "server": {"get_attr": ["host", "output"]},
                    "input_values": {"foo": foo},
                    **deploy,
                },
            },
            "consumer": test_resource({"get_attr": ["deploy", "result"]}),
        },
        outputs={
            "result": {"value": {"get_attr": ["deploy", "result"]}},
            "stdout": {"value": {"get_attr": ["deploy", "deploy_stdout"]}},
        },
    )


def _start(client: Client, name: str, **deploy: Any) -> tuple[str, FakeAgent]:
    """A stack whose deployment runs on a server of its own, and that server's agent."""
    server = f"server-{uuid.uuid4().hex[:8]}"
    stack_id = client.create(name, _template(server, **deploy))["stack_id"]
    credential = client.deployment_credential(stack_id, server)["credential"]
    return stack_id, FakeAgent(server, credential)


def _events(client: Client, stack_id: str, name: str = "deploy") -> list[dict[str, Any]]:
    return [e for e in client.events(stack_id) if e["resource_name"] == name]


def _counts() -> dict[str, int]:
    with session_scope() as session:
        return {
            model.__tablename__: session.scalar(select(func.count()).select_from(model)) or 0
            for model in (SoftwareDeploymentRow, ServerCredential, SoftwareConfigRow, Event)
        }


def _in_result_backend(text: str) -> bool:
    backend = redis.Redis.from_url(get_settings().result_backend)
    return any(
        text.encode() in (backend.get(key) or b"")
        for key in backend.scan_iter("celery-task-meta-*")
    )


def _row(deployment_id: str) -> dict[str, Any] | None:
    with session_scope() as session:
        row = session.get(SoftwareDeploymentRow, deployment_id)
        if row is None:
            return None
        stored = {c.name: getattr(row, c.name) for c in SoftwareDeploymentRow.__table__.columns}
        return {
            name: opened("software_deployment", name, value)
            if name in sealed("software_deployment")
            else value
            for name, value in stored.items()
        }


def test_in_progress_then_complete_hands_the_outputs_on(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-ok")
    deployment = agent.wait_for("deploy")
    inputs = inputs_of(deployment)
    assert deployment["group"] == "script" and deployment["config"] == SCRIPT
    assert inputs["foo"] == "bar"
    assert inputs["deploy_status_aware"] is True
    assert inputs["deploy_action"] == "CREATE"
    assert inputs["deploy_server_id"] == agent.server
    assert inputs["deploy_signal_id"] == deployment["id"]
    secret = inputs["deploy_signal_credential"]

    started = agent.signal(
        deployment, {"deploy_status": "IN_PROGRESS", "deploy_status_reason": "running hello"}
    )
    assert started["ok"] and started["duplicate"] is False
    assert agent.signal(deployment, {"deploy_status": "IN_PROGRESS"})["duplicate"] is True
    time.sleep(1.0)  # a few polls: the resource keeps waiting
    assert client.get(stack_id)["status"] == "CREATE_IN_PROGRESS"

    done = agent.signal(
        deployment,
        {
            "deploy_status": "COMPLETE",
            "result": "42",
            "deploy_stdout": "hello\n",
            "deploy_stderr": "",
            "deploy_status_code": 0,
        },
    )
    assert done["ok"] and done["deploy_status"] == "COMPLETE"
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"

    events = _events(client, stack_id)
    [signal] = [e for e in events if e["status"] == "SIGNAL_IN_PROGRESS"]
    assert signal["reason"] == "the server has started the deployment: running hello"
    [complete] = [e for e in events if e["status"] == "CREATE_COMPLETE"]
    assert signal["id"] < complete["id"]
    values = sorted(o.properties["value"] for o in sandbox_objects(stack_id))
    assert "42" in values  # the consumer got the output through get_attr
    outputs = client.outputs(stack_id)
    assert outputs["result"]["value"] == "42" and outputs["stdout"]["value"] == "hello\n"

    assert agent.metadata()["deployments"] == []  # nothing waits for the server any more
    again = agent.signal(deployment, {"deploy_status": "COMPLETE", "result": "43"})
    assert again["ok"] and again["duplicate"] is True
    assert client.outputs(stack_id)["result"]["value"] == "42"

    shown = client.deployment(stack_id, "deploy")
    assert shown["status"] == "CREATE_COMPLETE" and shown["server"] == agent.server
    assert shown["outputs"] == {"result": "42", "problem": None}
    assert shown["deploy_stdout"] == "hello\n" and shown["deploy_status_code"] == 0
    assert shown["inputs"] == ["foo"]
    assert any(e["status"] == "SIGNAL_IN_PROGRESS" for e in shown["events"])
    [listed] = client.deployments(stack_id)
    assert listed["id"] == deployment["id"] and listed["status"] == "CREATE_COMPLETE"
    everything = json.dumps([shown, listed, client.events(stack_id), client.get(stack_id)])
    assert secret not in everything and agent.credential not in everything


def test_credentials_never_reach_task_events_or_worker_logs(client: Client, workers: Any) -> None:
    """The stand-in agent sends with a plain send_task, which writes the full arguments as
    kwargsrepr; the workers show their own summary instead, and no result of these tasks."""
    seen: list[str] = []
    stop = threading.Event()

    def listen() -> None:
        with client.app.connection_for_read() as conn:
            receiver = client.app.events.Receiver(
                conn, handlers={"*": lambda event: seen.append(repr(event))}
            )
            for _ in receiver.consume(limit=None, timeout=1, wakeup=True):
                if stop.is_set():
                    break

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    time.sleep(1.0)
    stack_id, agent = _start(client, "deploy-quiet")
    deployment = agent.wait_for("deploy")
    secret = inputs_of(deployment)["deploy_signal_credential"]
    agent.signal(deployment, {"deploy_status": "IN_PROGRESS"})
    agent.signal(deployment, {"result": "r"})
    agent.signal(deployment, {"result": "r"}, credential="wrong")
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    time.sleep(1.5)  # the last events are on their way
    stop.set()
    listener.join(timeout=15)
    assert not listener.is_alive()
    text = "\n".join(seen)
    assert "conv_tasks.deployment.metadata" in text and "conv_tasks.deployment.signal" in text
    assert secret not in text and agent.credential not in text
    for log in Path(workers.log_dir).glob("w*.log"):
        logged = log.read_text(errors="replace")
        assert secret not in logged and agent.credential not in logged, log


def test_a_failed_update_rolls_back_and_the_server_runs_the_old_inputs(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-fail")
    agent.signal(agent.wait_for("deploy"), {"deploy_status": "COMPLETE", "result": "one"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"

    client.update(stack_id, _template(agent.server, foo="new"))
    update = agent.wait_for("deploy", "UPDATE")
    assert inputs_of(update)["foo"] == "new"
    failed = agent.signal(
        update,
        {"deploy_status": "FAILED", "deploy_status_code": 2, "deploy_stderr": "x\nboom\n"},
    )
    assert failed["ok"] and failed["deploy_status"] == "FAILED"
    back = agent.wait_for("deploy", "UPDATE", where=lambda d: inputs_of(d)["foo"] == "bar")
    assert client.get(stack_id)["status"] == "ROLLBACK_IN_PROGRESS"
    agent.signal(back, {"result": "one again"})
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE"
    reasons = [e["reason"] for e in _events(client, stack_id) if e["status"] == "UPDATE_FAILED"]
    assert any("deploy_status_code 2: x\nboom" in r for r in reasons), reasons
    assert client.outputs(stack_id)["result"]["value"] == "one again"


def test_a_late_signal_of_an_earlier_run_does_not_finish_the_current_one(
    client: Client,
) -> None:
    """An update the server is running is cancelled and rolled back: the rollback publishes
    a new run of UPDATE, and the old run's COMPLETE, arriving late, must not finish it."""
    stack_id, agent = _start(client, "deploy-late")
    agent.signal(agent.wait_for("deploy"), {"result": "one"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    client.update(stack_id, _template(agent.server, foo="new"))
    first = agent.wait_for("deploy", "UPDATE")
    agent.signal(first, {"deploy_status": "IN_PROGRESS"})
    client.cancel(stack_id)  # and roll back
    second = agent.wait_for("deploy", "UPDATE", where=lambda d: inputs_of(d)["foo"] == "bar")
    assert second["id"] == first["id"] and second["updated_time"] != first["updated_time"]
    late = agent.signal(first, {"result": "stale"})
    assert late["ok"] and late["duplicate"] and late["ended"], late
    assert late["deploy_status"] == "FAILED"
    time.sleep(1.0)
    assert client.get(stack_id)["status"] == "ROLLBACK_IN_PROGRESS"
    agent.signal(second, {"result": "rolled back"})
    assert client.wait(stack_id, timeout=60)["status"] == "ROLLBACK_COMPLETE"
    assert client.outputs(stack_id)["result"]["value"] == "rolled back"


def test_an_old_agent_that_never_says_in_progress_completes(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-old")
    deployment = agent.wait_for("deploy")
    result = agent.signal(deployment, {"result": "old", "deploy_stdout": "", "deploy_stderr": ""})
    assert result["ok"] and result["deploy_status"] == "COMPLETE"
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert client.outputs(stack_id)["result"]["value"] == "old"
    statuses = [e["status"] for e in _events(client, stack_id)]
    assert "SIGNAL_IN_PROGRESS" not in statuses and "SIGNAL_COMPLETE" in statuses


def test_an_error_output_fails_the_create_and_the_rollback_deletes(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-error-output")
    deployment = agent.wait_for("deploy")
    agent.signal(deployment, {"deploy_status": "COMPLETE", "problem": "config file missing"})
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE"
    assert "error output problem: config file missing" in final["status_reason"] or any(
        "error output problem: config file missing" in e["reason"]
        for e in _events(client, stack_id)
    )
    assert _row(deployment["id"]) is None


def test_wrong_credentials_and_other_tenants_are_refused_and_change_nothing(
    client: Client,
) -> None:
    stack_id, agent = _start(client, "deploy-refused")
    deployment = agent.wait_for("deploy")
    other_stack, other_agent = _start(client, "deploy-refused-2")
    other = other_agent.wait_for("deploy")
    stranger = Client(tenant=f"stranger-{uuid.uuid4().hex[:6]}", timeout=30)
    before_row, before = _row(deployment["id"]), _counts()

    refused = [
        agent.metadata(credential="not-the-credential"),
        agent.metadata(credential=other_agent.credential),  # another server's credential
        agent.signal(deployment, {"deploy_status": "COMPLETE"}, credential="forged"),
        agent.signal(deployment, {}, credential=inputs_of(other)["deploy_signal_credential"]),
        agent.signal({**deployment, "id": str(uuid.uuid4())}, {}),
    ]
    for answer in refused:
        assert answer["ok"] is False and answer["error"] == "not_authorized", answer
        assert agent.credential not in answer["message"]
    bad = agent.signal(deployment, {"deploy_status": "DONE"})
    assert bad["ok"] is False and bad["error"] == "invalid_payload"
    for call in (
        lambda: stranger.signal(stack_id, "deploy", {"deploy_status": "COMPLETE"}),
        lambda: stranger.deployment_credential(stack_id, agent.server, rotate=True),
        lambda: stranger.deployments(stack_id),
        lambda: stranger.deployment(stack_id, "deploy"),
    ):
        with pytest.raises(NotFound):
            call()
    with pytest.raises(Conflict, match="keeps only its hash"):
        client.deployment_credential(stack_id, agent.server)
    assert _row(deployment["id"]) == before_row
    assert _counts() == before
    assert client.get(stack_id)["status"] == "CREATE_IN_PROGRESS"

    rotated = client.deployment_credential(stack_id, agent.server, rotate=True)["credential"]
    assert not _in_result_backend(rotated)  # the client removed it once read
    assert agent.metadata()["error"] == "not_authorized"  # the old one stopped working
    agent.credential = rotated
    renewed = agent.wait_for("deploy")
    assert agent.signal(deployment, {})["error"] == "not_authorized"  # derived from the old
    assert agent.signal(renewed, {"result": "r"})["ok"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    other_agent.signal(other, {"result": "o"})
    assert client.wait(other_stack, timeout=60)["status"] == "CREATE_COMPLETE"


def test_the_owner_can_signal_a_deployment_with_resource_signal(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-owner")
    agent.wait_for("deploy")
    started = client.signal(stack_id, "deploy", {"deploy_status": "IN_PROGRESS"})
    assert started["deploy_status"] == "IN_PROGRESS"
    client.signal(stack_id, "deploy", {"deploy_status": "COMPLETE", "result": "by hand"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert client.outputs(stack_id)["result"]["value"] == "by hand"
    again = client.signal(stack_id, "deploy", {"result": "again"})
    assert again["duplicate"] is True


def test_delete_while_a_deployment_waits(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-delete", actions=["CREATE", "DELETE"])
    deployment = agent.wait_for("deploy")
    client.delete(stack_id)
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "DELETE_COMPLETE"
    reasons = [e["reason"] for e in _events(client, stack_id)]
    assert any("CREATE interrupted: the stack is being deleted" in r for r in reasons)
    assert _row(deployment["id"]) is None
    assert resource_rows(stack_id) == []
    # The server never ran it, so no DELETE was asked of it; the stack's credential is gone.
    assert agent.metadata()["error"] == "not_authorized"
    assert agent.signal(deployment, {"result": "late"})["error"] == "not_authorized"


def test_delete_asks_the_server_to_run_delete_when_actions_hold_it(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-delete-action", actions=["CREATE", "DELETE"])
    agent.signal(agent.wait_for("deploy"), {"result": "made"})
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    client.delete(stack_id)
    deleting = agent.wait_for("deploy", "DELETE")
    assert inputs_of(deleting)["deploy_action"] == "DELETE"
    assert client.get(stack_id)["status"] == "DELETE_IN_PROGRESS"
    agent.signal(deleting, {"deploy_status": "COMPLETE"})
    assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    assert _row(deleting["id"]) is None


def test_cancel_ends_the_wait(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-cancel")
    deployment = agent.wait_for("deploy")
    agent.signal(deployment, {"deploy_status": "IN_PROGRESS"})
    client.cancel(stack_id, rollback=False)
    deadline = time.monotonic() + 20
    while (_row(deployment["id"]) or {}).get("status") != "FAILED":
        assert time.monotonic() < deadline, "the deployment kept waiting"
        time.sleep(0.2)
    while not any("CREATE interrupted" in e["reason"] for e in _events(client, stack_id)):
        assert time.monotonic() < deadline, "the resource never ended its wait"
        time.sleep(0.2)
    assert agent.metadata()["deployments"] == []
    late = agent.signal(deployment, {"result": "too late"})
    assert late["ok"] and late["duplicate"] is True
    assert client.get(stack_id)["status"] == "CREATE_FAILED"


def test_a_deployment_times_out_on_its_own_timeout(client: Client) -> None:
    stack_id, agent = _start(client, "deploy-timeout", timeout=2)
    deployment = agent.wait_for("deploy")
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE"
    reasons = [e["reason"] for e in _events(client, stack_id)]
    # Whichever notices first, the engine's deadline or the deployment's own check, says so.
    assert any("timed out" in r or "timeout" in r for r in reasons if "2 s" in r), reasons
    assert client.deployments(stack_id) == []
    assert _row(deployment["id"]) is None
