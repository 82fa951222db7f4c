"""Actions that never finish: their deadline holds after supersession, and a cancel or a
stack delete interrupts them (issue: engine correctness, items 2 and 3).

A TestResource that waits 1,000 seconds stands for a stuck cloud call or a signal that never
comes: without deadlines and interrupts, every operation below would wait for it.
"""

from __future__ import annotations

import time
from typing import Any

from integration_support import resource_rows, template, test_resource

from conv_tasks.client import Client

STUCK = 1000  # seconds: longer than any of these tests may take


def _stuck(value: str, **props: Any) -> dict[str, Any]:
    return test_resource(value, wait_secs=STUCK, **props)


def _events_of(client: Client, stack_id: str, name: str) -> list[dict[str, Any]]:
    return [e for e in client.events(stack_id) if e["resource_name"] == name]


def _wait_in_progress(client: Client, stack_id: str, names: set[str], timeout: float = 30) -> None:
    """Until each named resource has started its action (an IN_PROGRESS event)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = {
            e["resource_name"]
            for e in client.events(stack_id)
            if e["status"].endswith("_IN_PROGRESS")
        }
        if names <= started:
            return
        time.sleep(0.2)
    raise TimeoutError(f"{sorted(names - started)} never started")


def test_a_superseded_action_still_fails_at_its_deadline(client: Client) -> None:
    """The create of `stuck` never finishes and an update supersedes it: the create fails
    when its own deadline passes, and the update then converges the resource."""
    v1 = template({"stuck": _stuck("one", action_timeout_secs=6)})
    stack_id = client.create("deadline", v1, disable_rollback=True)["stack_id"]
    _wait_in_progress(client, stack_id, {"stuck"})
    client.update(stack_id, template({"stuck": test_resource("two")}))
    assert client.get(stack_id)["status"] == "UPDATE_IN_PROGRESS"  # superseded mid-way
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "UPDATE_COMPLETE"
    reasons = [e["reason"] for e in _events_of(client, stack_id, "stuck")]
    assert any("CREATE action timed out" in r and "6 s" in r for r in reasons), reasons
    [head] = [r for r in resource_rows(stack_id) if r.replaced_by is None]
    assert head.status == "COMPLETE" and head.interrupt_reason is None


def test_cancel_interrupts_the_actions_in_flight(client: Client) -> None:
    v1 = template({"base": test_resource("b")})
    stack_id = client.create("cancel-int", v1)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    slow = {f"s{i}": _stuck(f"v{i}") for i in range(4)}
    client.update(stack_id, template({"base": test_resource("b"), **slow}))
    _wait_in_progress(client, stack_id, set(slow))
    client.cancel(stack_id, rollback=False)
    _wait_all_released(client, stack_id, set(slow))
    for name in slow:
        reasons = [e["reason"] for e in _events_of(client, stack_id, name)]
        assert any("CREATE interrupted: the stack update was cancelled" in r for r in reasons)
    rows = {r.name: r for r in resource_rows(stack_id)}
    assert all(rows[name].status == "FAILED" and rows[name].lock_nonce is None for name in slow)


def _wait_all_released(client: Client, stack_id: str, names: set[str], timeout: float = 20) -> None:
    """Until each named resource's action has ended with an interrupted event."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = {
            e["resource_name"]
            for e in client.events(stack_id)
            if e["status"].endswith("_FAILED") and "interrupted" in e["reason"]
        }
        if names <= done:
            return
        time.sleep(0.2)
    raise TimeoutError(f"{sorted(names - done)} were not interrupted")


def test_delete_interrupts_a_create_that_never_finishes(client: Client) -> None:
    v1 = template({"stuck": _stuck("x"), "fine": test_resource("f")})
    stack_id = client.create("delete-int", v1)["stack_id"]
    _wait_in_progress(client, stack_id, {"stuck"})
    client.delete(stack_id)
    final = client.wait(stack_id, timeout=30)
    assert final["status"] == "DELETE_COMPLETE"
    reasons = [e["reason"] for e in _events_of(client, stack_id, "stuck")]
    assert any("CREATE interrupted: the stack is being deleted" in r for r in reasons), reasons
