"""Actions that never finish, under real workers: a delete still completes within the stack
timeout, and a cancel interrupts every action in flight within two poll intervals."""

from __future__ import annotations

import time
import uuid
from datetime import datetime
from typing import Any

from conv_tasks.client import Client
from conv_tasks.resources.builtin.test_resource import MAX_POLL_SECS

STUCK = 1000.0  # seconds: an action that will not finish while the test runs


def _tr(value: str, **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


def _template(resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _wait_started(client: Client, stack_id: str, names: set[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    started: set[str] = set()
    while time.monotonic() < deadline:
        started = {
            e["resource_name"]
            for e in client.events(stack_id)
            if e["status"].endswith("_IN_PROGRESS") and e["resource_name"]
        }
        if names <= started:
            return
        time.sleep(0.2)
    raise TimeoutError(f"{len(names - started)} of {len(names)} actions never started")


def _interrupted_at(client: Client, stack_id: str) -> dict[str, float]:
    return {
        e["resource_name"]: datetime.fromisoformat(e["time"]).timestamp()
        for e in client.events(stack_id)
        if e["resource_name"] and "interrupted" in e["reason"]
    }


def test_a_stuck_action_does_not_hold_up_a_delete(workers: Any) -> None:
    client = Client(tenant=f"chaos-{uuid.uuid4().hex[:6]}", timeout=30)
    resources = {"stuck": _tr("s", wait_secs=STUCK)}
    resources.update({f"ok{i}": _tr(str(i)) for i in range(5)})
    stack_id = client.create("stuck-delete", _template(resources), timeout_mins=1)["stack_id"]
    _wait_started(client, stack_id, {"stuck"})
    asked = time.time()
    client.delete(stack_id)
    final = client.wait(stack_id, timeout=90)
    took = time.time() - asked
    print(f"delete with a stuck create in flight completed in {took:.1f} s")
    assert final["status"] == "DELETE_COMPLETE", final
    assert took < 60, "the delete waited for the stuck action's deadline"
    assert "stuck" in _interrupted_at(client, stack_id)


def test_cancel_interrupts_fifty_actions_within_two_polls(workers: Any) -> None:
    client = Client(tenant=f"chaos-{uuid.uuid4().hex[:6]}", timeout=30)
    stack_id = client.create("cancel-50", _template({"base": _tr("b")}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    slow = {f"s{i:02d}": _tr(str(i), wait_secs=STUCK) for i in range(50)}
    client.update(stack_id, _template({"base": _tr("b"), **slow}))
    _wait_started(client, stack_id, set(slow))
    asked = time.time()
    client.cancel(stack_id, rollback=False)
    deadline = time.monotonic() + 30
    interrupted: dict[str, float] = {}
    while time.monotonic() < deadline and set(slow) - interrupted.keys():
        time.sleep(0.2)
        interrupted = _interrupted_at(client, stack_id)
    assert set(slow) <= interrupted.keys(), sorted(set(slow) - interrupted.keys())
    latencies = sorted(interrupted[name] - asked for name in slow)
    print(
        f"50 actions interrupted: median {latencies[25]:.2f} s, "
        f"slowest {latencies[-1]:.2f} s after the cancel (poll interval {MAX_POLL_SECS} s)"
    )
    assert latencies[-1] <= 2 * MAX_POLL_SECS
