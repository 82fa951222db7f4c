"""Wait conditions through real workers, signalled from outside as a foreign service would.

The "host" is a TestResource given the handle's `signal` attribute (as a
server would get it in its user data); the test reads it from the sandbox
and signals with a plain send_task of conv_tasks.wait_condition.signal.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from integration_support import sandbox_objects, template, test_resource
from jsonschema import Draft202012Validator

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput, NotAuthorized, NotFound
from conv_tasks.tasks.contracts import contracts

SIGNAL_TASK = "conv_tasks.wait_condition.signal"


def _template(*, count: int = 1, timeout: int = 120) -> dict[str, Any]:
    return template(
        {
            "handle": {"type": "OS::Heat::WaitConditionHandle"},
            "host": test_resource({"get_attr": ["handle", "signal"]}),
            "wait": {
                "type": "OS::Heat::WaitCondition",
                "properties": {
                    "handle": {"get_resource": "handle"},
                    "count": count,
                    "timeout": timeout,
                },
            },
            "after": test_resource({"get_attr": ["wait", "data"]}),
        },
        outputs={
            "data": {"value": {"get_attr": ["wait", "data"]}},
            "curl": {"value": {"get_attr": ["handle", "curl_cli"]}},
            "endpoint": {"value": {"get_attr": ["handle", "endpoint"]}},
        },
    )


def _host_signal(stack_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """What the host was given: the handle's `signal` attribute, parsed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for obj in sandbox_objects(stack_id):
            value = obj.properties.get("value")
            if isinstance(value, str) and SIGNAL_TASK in value:
                return dict(json.loads(value))
        time.sleep(0.2)
    raise AssertionError("the host never got the handle's signal attribute")


def _send(client: Client, given: dict[str, Any], details: dict[str, Any]) -> dict[str, Any]:
    """A foreign service's signal: the task named in the attribute, its arguments plus details."""
    kwargs = {"handle": given["handle"], "token": given["token"], "details": details}
    result = client.app.send_task(given["task"], kwargs=kwargs).get(timeout=30)
    assert isinstance(result, dict)
    schema = Draft202012Validator(contracts(SIGNAL_TASK)[SIGNAL_TASK]["result"])
    assert not list(schema.iter_errors(result)), result
    return result


def _status_soon(client: Client, stack_id: str, seconds: float = 1.5) -> str:
    time.sleep(seconds)  # a few of the wait's polls
    return str(client.get(stack_id)["status"])


def test_count_two_signals_from_outside_complete_with_the_data(
    client: Client, workers: Any
) -> None:
    stack_id = client.create("wait-ok", _template(count=2))["stack_id"]
    given = _host_signal(stack_id)
    token = given["token"]

    first = _send(client, given, {"id": "web1", "data": {"ip": "10.0.0.1"}, "reason": "web1 up"})
    assert first["ok"] and first["id"] == "web1" and first["replaced"] is False
    # The same id again overwrites (Heat): still one signal of two.
    again = _send(client, given, {"id": "web1", "data": {"ip": "10.0.0.9"}})
    assert again["ok"] and again["replaced"] is True and again["signals"] == 1
    assert _status_soon(client, stack_id) == "CREATE_IN_PROGRESS"

    second = _send(client, given, {})  # Heat's defaults: SUCCESS, id 2, "Signal 2 received"
    assert second["ok"] and second["id"] == "2" and second["status"] == "SUCCESS"
    shown = client.wait(stack_id, timeout=60)
    assert shown["status"] == "CREATE_COMPLETE", shown

    outputs = client.outputs(stack_id)
    data = outputs["data"]["value"]
    assert isinstance(data, str)
    assert json.loads(data) == {"web1": {"ip": "10.0.0.9"}, "2": None}
    assert outputs["curl"]["value"] == "******"
    assert outputs["endpoint"]["value"] == given["handle"]
    assert any(o.properties.get("value") == data for o in sandbox_objects(stack_id))

    events = [e for e in client.events(stack_id) if e["resource_name"] == "handle"]
    reasons = [e["reason"] for e in events if e["status"] == "SIGNAL_COMPLETE"]
    assert reasons == [
        "Signal: status:SUCCESS reason:web1 up",
        "Signal: status:SUCCESS reason:Signal 2 received",
        "Signal: status:SUCCESS reason:Signal 2 received",
    ]

    seen = json.dumps(
        [
            client.get(stack_id),
            outputs,
            client.events(stack_id),
            client.resources(stack_id),
            client.resource(stack_id, "handle"),
            client.resource(stack_id, "host"),
            client.resource(stack_id, "wait"),
            client.template(stack_id),
        ]
    )
    assert token not in seen
    handle_shown = client.resource(stack_id, "handle")["attributes"]
    assert handle_shown.get("token") in (None, "******")
    for log in Path(workers.log_dir).glob("w*.log"):
        assert token not in log.read_text(errors="replace"), log


def test_a_failure_signal_fails_the_stack_with_its_reason(client: Client) -> None:
    stack_id = client.create("wait-fail", _template(count=3), disable_rollback=True)["stack_id"]
    given = _host_signal(stack_id)
    assert _send(client, given, {"status": "SUCCESS"})["ok"]
    assert _send(client, given, {"status": "FAILURE", "reason": "apt-get failed"})["ok"]
    shown = client.wait(stack_id, timeout=60)
    assert shown["status"] == "CREATE_FAILED", shown
    wait = next(r for r in client.resources(stack_id) if r["name"] == "wait")
    assert wait["status"] == "CREATE_FAILED"
    assert wait["status_reason"] == (
        "WaitCondition wait: a FAILURE signal was received: apt-get failed"
    )
    assert "apt-get failed" in shown["status_reason"]


def test_no_signal_in_time_fails_the_stack_at_its_timeout(client: Client) -> None:
    started = time.monotonic()
    stack_id = client.create("wait-late", _template(timeout=2), disable_rollback=True)["stack_id"]
    shown = client.wait(stack_id, timeout=60)
    assert shown["status"] == "CREATE_FAILED", shown
    assert time.monotonic() - started >= 2.0
    wait = next(r for r in client.resources(stack_id) if r["name"] == "wait")
    assert wait["status_reason"] == "WaitCondition wait: timed out after 2 s: 0 of 1 received"


def test_the_tenant_signals_through_resource_signal(client: Client) -> None:
    stack_id = client.create("wait-tenant", _template())["stack_id"]
    _host_signal(stack_id)  # the handle exists
    answer = client.signal(stack_id, "handle", {"id": "by-owner", "data": "hello"})
    assert answer["id"] == "by-owner" and answer["status"] == "SUCCESS"
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert json.loads(client.outputs(stack_id)["data"]["value"]) == {"by-owner": "hello"}


def test_bad_signals_are_refused_and_change_nothing(client: Client) -> None:
    stack_id = client.create("wait-bad", _template(), disable_rollback=True)["stack_id"]
    given = _host_signal(stack_id)
    with pytest.raises(NotAuthorized):
        client.signal_wait_condition(given["handle"], "not-the-token", {})
    with pytest.raises(NotAuthorized):
        client.signal_wait_condition("no-such-handle", given["token"], {})
    with pytest.raises(InvalidInput) as exc:
        client.signal_wait_condition(given["handle"], given["token"], {"status": "DONE"})
    assert exc.value.code == "invalid_payload"
    assert [p.path for p in exc.value.problems] == ["details.status"]
    with pytest.raises(InvalidInput) as exc:
        client.signal(stack_id, "handle", {"state": "SUCCESS"})
    assert [p.path for p in exc.value.problems] == ["details.state"]
    assert _status_soon(client, stack_id) == "CREATE_IN_PROGRESS"
    assert not [e for e in client.events(stack_id) if e["status"].startswith("SIGNAL")]

    assert client.signal_wait_condition(given["handle"], given["token"], {})["ok"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    with pytest.raises(NotFound) as gone:
        client.signal_wait_condition(given["handle"], given["token"], {})
    assert "was deleted" in str(gone.value)


def test_an_update_that_replaces_the_handle_refuses_the_old_token(client: Client) -> None:
    stack_id = client.create("wait-replace", _template())["stack_id"]
    old = _host_signal(stack_id)
    assert _send(client, old, {"data": "first"})["ok"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"

    replaced = _template()
    replaced["resources"]["handle"]["properties"] = {"signal_transport": "NO_SIGNAL"}
    client.update(stack_id, replaced)
    assert _status_soon(client, stack_id) == "UPDATE_IN_PROGRESS"  # a new wait, a new handle
    assert client.signal(stack_id, "handle", {"data": "second"})["ok"]
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"
    assert json.loads(client.outputs(stack_id)["data"]["value"]) == {"1": "second"}

    with pytest.raises(NotFound) as gone:
        client.signal_wait_condition(old["handle"], old["token"], {})
    assert "an update replaced or removed it" in str(gone.value)


def test_a_signal_sent_before_the_wait_began_counts(client: Client) -> None:
    early = _template()
    early["resources"]["slow"] = test_resource("slow", wait_secs=4)
    early["resources"]["wait"]["depends_on"] = ["slow"]
    stack_id = client.create("wait-early", early)["stack_id"]
    given = _host_signal(stack_id)
    assert _send(client, given, {"id": "early", "data": "before"})["ok"]
    # The wait depends on `slow`, still at work: it has not begun waiting.
    states = {r["name"]: r["status"] for r in client.resources(stack_id)}
    assert states["slow"] == "CREATE_IN_PROGRESS", states
    assert states.get("wait") != "CREATE_IN_PROGRESS", states
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    assert json.loads(client.outputs(stack_id)["data"]["value"]) == {"early": "before"}


def test_deleting_a_stack_that_waits_stops_the_wait(client: Client) -> None:
    stack_id = client.create("wait-deleted", _template(timeout=600))["stack_id"]
    given = _host_signal(stack_id)
    assert _status_soon(client, stack_id) == "CREATE_IN_PROGRESS"
    started = time.monotonic()
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    assert time.monotonic() - started < 30
    with pytest.raises(NotFound, match="was deleted"):
        client.signal_wait_condition(given["handle"], given["token"], {})


def test_the_token_never_reaches_task_events(client: Client) -> None:
    """A plain send_task writes the full arguments as kwargsrepr; the worker shows its own
    summary (the handle's id) instead."""
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
    stack_id = client.create("wait-events", _template())["stack_id"]
    given = _host_signal(stack_id)
    assert _send(client, given, {"reason": "quiet", "data": "d"})["ok"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    time.sleep(1.5)  # the last events are on their way
    stop.set()
    listener.join(timeout=15)
    assert not listener.is_alive()
    text = "\n".join(seen)
    assert SIGNAL_TASK in text and given["handle"] in text
    assert given["token"] not in text
