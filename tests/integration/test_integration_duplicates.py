"""Every node task delivered twice, in a shuffled order: nothing is done twice, nothing lost.

The engine runs in this process with a dispatcher that delivers each
enqueued node twice, against the real PostgreSQL and Redis, so the
duplicates are certain rather than left to chance.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from typing import Any

from integration_support import (
    create_stack,
    resource_rows,
    sandbox_objects,
    stack_events,
    template,
    test_resource,
    update_stack,
)

from conv_tasks.engine import EngineEnv, default_env, parse_node_task, run_node


class DuplicatingDispatcher:
    """Delivers every node twice; the queue is drained in a shuffled order."""

    def __init__(self) -> None:
        self.queue: list[Mapping[str, Any]] = []
        self.deliveries = 0

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.queue.extend([payload, payload])

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def drain(self, env: EngineEnv, rng: random.Random, limit: int = 5000) -> None:
        while self.queue:
            assert self.deliveries < limit, "deliveries did not converge"
            payload = self.queue.pop(rng.randrange(len(self.queue)))
            self.deliveries += 1
            run_node(env, parse_node_task(payload))


def test_duplicated_deliveries_create_each_resource_once(
    database_url: str, redis_client: object
) -> None:
    dispatcher = DuplicatingDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(5)
    tenant = f"dup-{uuid.uuid4().hex[:6]}"
    v1 = template(
        {
            "a": test_resource("a"),
            "b": test_resource("b"),
            "c": test_resource(
                {"list_join": ["+", [{"get_attr": ["a", "output"]}, {"get_attr": ["b", "output"]}]]}
            ),
            "d": {**test_resource("d"), "depends_on": ["c"]},
        }
    )
    stack_id = create_stack(env, tenant=tenant, name="dup", template=v1, parameters={})
    dispatcher.drain(env, rng)
    statuses = stack_events(stack_id)
    assert statuses[-1] == (None, "CREATE", "COMPLETE")
    assert statuses.count((None, "CREATE", "COMPLETE")) == 1
    for name in "abcd":
        assert statuses.count((name, "CREATE", "COMPLETE")) == 1, statuses
    objects = sandbox_objects(stack_id)
    assert sorted(o.properties["value"] for o in objects) == ["a", "a+b", "b", "d"]
    assert all(o.create_calls == 1 for o in objects)

    v2 = template(
        {
            "a": test_resource("a2"),
            "b": test_resource("b"),
            "c": test_resource("c2", update_replace=True),
        }
    )
    update_stack(env, tenant=tenant, stack_ref=stack_id, template=v2, parameters={})
    dispatcher.drain(env, rng)
    statuses = stack_events(stack_id)
    assert statuses[-1] == (None, "UPDATE", "COMPLETE")
    assert statuses.count(("a", "UPDATE", "COMPLETE")) == 1
    assert statuses.count(("d", "DELETE", "COMPLETE")) == 1
    rows = resource_rows(stack_id)
    assert sorted((r.name, r.version) for r in rows) == [("a", 1), ("b", 0), ("c", 1)]
    values = sorted(o.properties["value"] for o in sandbox_objects(stack_id))
    assert values == ["a2", "b", "c2"]
