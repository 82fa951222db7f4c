"""A stack check's node tasks delivered twice, or lost: each resource is checked once per
delivery that counts, and a check whose messages were lost is resumed by the watchdog's
restart. The engine runs in this process against the real PostgreSQL and Redis."""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from typing import Any

from integration_support import (
    check_stack,
    create_stack,
    resource_rows,
    stack_events,
    template,
    test_resource,
    update_stack,
)

from conv_tasks.engine import EngineEnv, StackControl, default_env, parse_node_task, run_node

TEMPLATE = template(
    {
        "a": test_resource("a"),
        "b": test_resource({"get_attr": ["a", "output"]}),
        "c": {**test_resource("c"), "depends_on": ["b"]},
        "n": {"type": "OS::Heat::None"},
    }
)


class QueueDispatcher:
    """Keeps what the engine enqueues; delivers each `copies` times, in a shuffled order."""

    def __init__(self, copies: int = 1) -> None:
        self.copies = copies
        self.queue: list[Mapping[str, Any]] = []

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.queue.extend([payload] * self.copies)

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def drain(self, env: EngineEnv, rng: random.Random, limit: int = 2000) -> None:
        delivered = 0
        while self.queue:
            assert delivered < limit, "deliveries did not converge"
            payload = self.queue.pop(rng.randrange(len(self.queue)))
            delivered += 1
            run_node(env, parse_node_task(payload))


def created(env: EngineEnv, dispatcher: QueueDispatcher, rng: random.Random) -> tuple[str, str]:
    tenant = f"chk-{uuid.uuid4().hex[:6]}"
    stack_id = create_stack(env, tenant=tenant, name="chk", template=TEMPLATE, parameters={})
    dispatcher.drain(env, rng)
    assert stack_events(stack_id)[-1] == (None, "CREATE", "COMPLETE")
    return tenant, stack_id


def test_duplicated_check_deliveries_check_each_resource_once(
    database_url: str, redis_client: object
) -> None:
    dispatcher = QueueDispatcher(copies=2)
    env = default_env(dispatcher)
    rng = random.Random(7)
    tenant, stack_id = created(env, dispatcher, rng)
    rows = [(r.id, r.version) for r in resource_rows(stack_id)]

    check_stack(env, tenant=tenant, stack_ref=stack_id)
    dispatcher.drain(env, rng)
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "CHECK", "COMPLETE")
    assert seen.count((None, "CHECK", "COMPLETE")) == 1
    for name in "abcn":
        assert seen.count((name, "CHECK", "COMPLETE")) == 1, seen
    assert [(r.id, r.version) for r in resource_rows(stack_id)] == rows


def test_a_check_whose_messages_were_lost_is_resumed_by_a_restart(
    database_url: str, redis_client: object
) -> None:
    dispatcher = QueueDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(3)
    tenant, stack_id = created(env, dispatcher, rng)

    started = check_stack(env, tenant=tenant, stack_ref=stack_id)
    dispatcher.queue.clear()  # the worker that took them died, and the messages went with it
    assert started.traversal is not None
    resumed = StackControl(env).restart(stack_id, started.traversal, "stalled")
    assert resumed is not None and resumed.action == "CHECK"
    assert len(dispatcher.queue) == 4
    dispatcher.drain(env, rng)
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "CHECK", "COMPLETE")
    assert {name for name, action, status in seen if action == "CHECK" and name} == set("abcn")
    assert not any(action == "UPDATE" for _, action, _ in seen)


def test_an_update_started_during_a_check_takes_the_stack_over(
    database_url: str, redis_client: object
) -> None:
    dispatcher = QueueDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(11)
    tenant, stack_id = created(env, dispatcher, rng)

    check_stack(env, tenant=tenant, stack_ref=stack_id)
    update_stack(env, tenant=tenant, stack_ref=stack_id, template=TEMPLATE, parameters={})
    dispatcher.drain(env, rng)  # the check's nodes find the stack is no longer theirs
    seen = stack_events(stack_id)
    assert seen[-1] == (None, "UPDATE", "COMPLETE")
    assert (None, "CHECK", "COMPLETE") not in seen
