"""Support status, parameters, signals and timeouts, through real workers."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from integration_support import resource_rows, sandbox_objects, template, test_resource
from sqlalchemy import update

from conv_tasks.client import Client
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.errors import InvalidInput, NotFound


def test_deprecated_type_warns_and_translates_its_old_property(client: Client) -> None:
    tmpl = template(
        {"old": {"type": "OS::Heat::TestResourceOld", "properties": {"output_value": "legacy"}}}
    )
    result = client.create("deprecated", tmpl)
    assert any("DEPRECATED" in w for w in result["warnings"])
    assert client.wait(result["stack_id"])["status"] == "CREATE_COMPLETE"
    values = [o.properties["value"] for o in sandbox_objects(result["stack_id"])]
    assert values == ["legacy"]


def test_stacks_with_hidden_types_can_still_be_updated_and_deleted(client: Client) -> None:
    stack_id = client.create("hidden", template({"d": {"type": "OS::Heat::Dummy"}}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    client.update(
        stack_id, template({"d": {"type": "OS::Heat::Dummy"}, "n": {"type": "OS::Heat::None"}})
    )
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    assert resource_rows(stack_id) == []


def test_parameters_update_keeps_the_template_and_existing_values(client: Client) -> None:
    tmpl = template(
        {"a": test_resource({"get_param": "colour"}), "b": test_resource({"get_param": "size"})},
        parameters={
            "colour": {"type": "string"},
            "size": {"type": "number", "constraints": [{"range": {"min": 1, "max": 9}}]},
        },
    )
    stack_id = client.create("params", tmpl, {"colour": "red", "size": 3})["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    with pytest.raises(InvalidInput) as info:
        client.update(stack_id, parameters={"size": 99})
    assert "parameters.size" in str(info.value)
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"  # the refusal changed nothing
    client.update(stack_id, parameters={"size": 4})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    values = sorted(o.properties["value"] for o in sandbox_objects(stack_id))
    assert values == ["4", "red"]
    assert client.get(stack_id)["parameters"] == {"colour": "red", "size": 4}


def test_signal_records_deployment_progress(client: Client) -> None:
    stack_id = client.create("signal", template({"dep": test_resource("x")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    client.signal(
        stack_id,
        "dep",
        {"deploy_status": "IN_PROGRESS", "deploy_status_reason": "deployment started"},
    )
    events = [e for e in client.events(stack_id) if e["action"] == "SIGNAL"]
    assert [(e["resource_name"], e["status"], e["reason"]) for e in events] == [
        ("dep", "SIGNAL_IN_PROGRESS", "deployment started")
    ]
    with pytest.raises(InvalidInput) as info:
        client.signal(stack_id, "dep", {"deploy_status": "DONE"})
    assert "details.deploy_status" in str(info.value)


def test_stack_timeout_fails_the_operation(client: Client) -> None:
    tmpl = template({"slow": test_resource("s", wait_secs=60)})
    stack_id = client.create("timeout", tmpl, disable_rollback=True, timeout_mins=1)["stack_id"]
    time.sleep(1.0)
    with session_scope() as session:  # pretend the operation started two minutes ago
        session.execute(
            update(Stack)
            .where(Stack.id == stack_id)
            .values(operation_started_at=datetime.now(UTC) - timedelta(minutes=2))
        )
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "CREATE_FAILED"
    assert "timed out" in final["status_reason"]


def test_hidden_parameter_in_outputs_is_masked(client: Client) -> None:
    tmpl = template(
        {"a": test_resource("x")},
        parameters={"token": {"type": "string", "hidden": True}},
        outputs={
            "leak": {
                "value": {
                    "str_replace": {
                        "template": "t=TOKEN",
                        "params": {"TOKEN": {"get_param": "token"}},
                    }
                }
            }
        },
    )
    stack_id = client.create("outmask", tmpl, {"token": "tok-123456"})["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    assert "tok-123456" not in repr(client.outputs(stack_id))
    assert "tok-123456" not in repr(client.get(stack_id))


def test_tenants_see_only_their_own_stacks(client: Client) -> None:
    stack_id = client.create("mine", template({"a": test_resource("x")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    other = Client(tenant=f"{client.tenant}-other", timeout=30)
    assert other.list() == []
    for call in (
        lambda: other.get(stack_id),
        lambda: other.get("mine"),
        lambda: other.get(stack_id, include_deleted=True),
        lambda: other.events(stack_id),
        lambda: other.resources("mine"),
        lambda: other.update("mine", template({"a": test_resource("y")})),
        lambda: other.delete(stack_id),
    ):
        with pytest.raises(NotFound):
            call()
    assert client.get(stack_id)["status"] == "CREATE_COMPLETE"
    assert [s["id"] for s in client.list()] == [stack_id]


def test_task_events_seen_by_flower_never_carry_hidden_values(client: Client) -> None:
    """Flower shows what task events carry; hidden values must not be in them."""
    import threading

    seen: list[str] = []
    app = client.app
    stop = threading.Event()

    def listen() -> None:
        with app.connection_for_read() as conn:
            receiver = app.events.Receiver(
                conn, handlers={"*": lambda event: seen.append(repr(event))}
            )
            # Every event it would see has come once the stack is complete; then it stops.
            for _ in receiver.consume(limit=None, timeout=1, wakeup=True):
                if stop.is_set():
                    break

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    time.sleep(1.0)
    tmpl = template(
        {
            "a": test_resource({"get_param": "pw"}),
            "b": test_resource({"get_attr": ["a", "output"]}),
        },
        parameters={"pw": {"type": "string", "hidden": True}},
    )
    stack_id = client.create("flower", tmpl, {"pw": "pa55-w0rd-xyz"})["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    time.sleep(1.0)  # the last events are on their way
    stop.set()
    listener.join(timeout=15)
    assert not listener.is_alive()
    text = "\n".join(seen)
    assert "conv_tasks.node.converge" in text or "task-received" in text  # events did flow
    assert "pa55-w0rd-xyz" not in text
