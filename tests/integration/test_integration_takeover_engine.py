"""An update taking over an action whose worker died, driven in this process against the real
PostgreSQL and Redis (issue 18).

The first delivery of a create starts the action and is never polled again (its worker
died); its lease is made to run out. An update of the stack then resumes that create with
its token, and once it finishes the node converges afresh to the update's definition:
update in place, replacement, or nothing when the definitions match.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

import pytest
from integration_support import (
    create_stack,
    resource_rows,
    sandbox_objects,
    stack_events,
    template,
    test_resource,
    update_stack,
)
from sealed_rows import opened
from sqlalchemy import text

from conv_tasks.db.session import session_scope
from conv_tasks.engine import EngineEnv, Outcome, default_env, parse_node_task, run_node

WAIT = 1.0  # seconds the first create takes: it is still under way when its worker "dies"


class Queue:
    """The dispatcher: payloads wait here, with when they are due."""

    def __init__(self) -> None:
        self.items: list[tuple[float, Mapping[str, Any]]] = []

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.items.append((time.monotonic() + (countdown or 0.0), payload))

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def take(self) -> Mapping[str, Any]:
        self.items.sort(key=lambda item: item[0])
        due, payload = self.items.pop(0)
        time.sleep(max(0.0, due - time.monotonic()))
        return payload

    def drain(self, env: EngineEnv, limit: int = 500) -> list[Outcome]:
        outcomes = []
        while self.items:
            assert len(outcomes) < limit, "deliveries did not converge"
            outcomes.append(run_node(env, parse_node_task(self.take())))
        return outcomes


def _worker_dies_mid_create(env: EngineEnv, queue: Queue, stack_id: str) -> None:
    """Deliver the create node once (its action starts and asks to be polled), lose the poll
    as a dead worker would, and let its lease run out."""
    [(_, first)] = queue.items
    queue.items.clear()
    assert run_node(env, parse_node_task(first)) == Outcome.POLLING
    queue.items.clear()  # the poll dies with the worker
    with session_scope() as session:
        expired = session.execute(
            text(
                "UPDATE resource SET lock_expires_at = now() - interval '1 second' "
                "WHERE stack_id = :id AND status = 'IN_PROGRESS' AND lock_nonce IS NOT NULL"
            ),
            {"id": stack_id},
        ).rowcount  # type: ignore[attr-defined]
    assert expired == 1


def _taken_over(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, list[Outcome]]:
    """Create a stack of `old` as r0 whose worker dies mid-create, update it to the resources
    `new`, run every node; the update must complete."""
    queue = Queue()
    env = default_env(queue)
    tenant = f"takeover-{uuid.uuid4().hex[:6]}"
    stack_id = create_stack(
        env, tenant=tenant, name="takeover", template=template({"r0": old}), parameters={}
    )
    _worker_dies_mid_create(env, queue, stack_id)
    update_stack(env, tenant=tenant, stack_ref=stack_id, template=template(new), parameters={})
    outcomes = queue.drain(env)
    assert stack_events(stack_id)[-1] == (None, "UPDATE", "COMPLETE"), stack_events(stack_id)
    return stack_id, outcomes


def _head(stack_id: str) -> Any:
    rows = [r for r in resource_rows(stack_id) if r.replaced_by is None]
    return max(rows, key=lambda r: r.version)


def test_a_taken_over_create_is_then_updated_in_place(
    database_url: str, redis_client: object
) -> None:
    old = test_resource("v1", action_wait_secs={"create": WAIT})
    new = test_resource("v2", action_wait_secs={"create": WAIT})
    stack_id, outcomes = _taken_over(old, {"r0": new})

    assert Outcome.TAKEN_OVER in outcomes
    head = _head(stack_id)
    assert (head.action, head.status) == ("UPDATE", "COMPLETE")
    assert opened("resource", "properties_data", head.properties_data)["value"] == "v2"
    [live] = sandbox_objects(stack_id)
    assert live.properties["value"] == "v2"
    assert live.create_calls == 1 and live.id == head.physical_id
    events = [e for e in stack_events(stack_id) if e[0] == "r0"]
    assert events[-3:] == [
        ("r0", "CREATE", "COMPLETE"),
        ("r0", "UPDATE", "IN_PROGRESS"),
        ("r0", "UPDATE", "COMPLETE"),
    ], events


def test_a_taken_over_create_is_then_replaced_when_it_cannot_change_in_place(
    database_url: str, redis_client: object
) -> None:
    old = test_resource("v1", action_wait_secs={"create": WAIT}, update_replace=True)
    new = test_resource("v2", action_wait_secs={"create": 0}, update_replace=True)
    stack_id, _ = _taken_over(old, {"r0": new})

    [head] = resource_rows(stack_id)  # the replaced version was cleaned up
    assert opened("resource", "properties_data", head.properties_data)["value"] == "v2"
    [live] = sandbox_objects(stack_id)
    assert live.properties["value"] == "v2" and live.id == head.physical_id
    gone = [o for o in sandbox_objects(stack_id, include_deleted=True) if o.deleted]
    assert [o.properties["value"] for o in gone] == ["v1"]


@pytest.mark.parametrize("twin", ["same-resource", "another-resource-changed"])
def test_a_taken_over_create_of_the_wanted_definition_is_not_acted_on_again(
    database_url: str, redis_client: object, twin: str
) -> None:
    old = test_resource("v1", action_wait_secs={"create": WAIT})
    new = {"r0": old, "r1": test_resource("x")} if twin == "another-resource-changed" else None
    stack_id, outcomes = _taken_over(old, new or {"r0": old})
    assert Outcome.TAKEN_OVER not in outcomes
    head = _head(stack_id)
    assert (head.version, head.action, head.status) == (0, "CREATE", "COMPLETE")
    r0 = [o for o in sandbox_objects(stack_id) if o.properties["value"] == "v1"]
    assert len(r0) == 1 and r0[0].create_calls == 1
    assert [e for e in stack_events(stack_id) if e[0] == "r0" and e[1] == "UPDATE"] == []
