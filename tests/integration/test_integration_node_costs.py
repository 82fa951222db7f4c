"""What one graph node costs, counted against the real PostgreSQL and Redis.

The engine runs in this process with a dispatcher that queues node payloads
in memory, so every delivery can be measured on its own: SQL statements (each
one round trip on the node's autocommit connection), Redis round trips of the
SyncPoints, and broker publishes. Counts, not timings: they do not depend on
how busy the machine is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from integration_support import create_stack, delete_stack, resource_rows, template, update_stack

from conv_tasks import syncpoint
from conv_tasks.db.session import session_scope, statement_count
from conv_tasks.db.stacks import Stacks
from conv_tasks.engine import EngineEnv, Outcome, default_env, parse_node_task, run_node
from conv_tasks.settings import get_settings
from conv_tasks.syncpoint import SyncPointStore

N = 12


class CountingConnection(redis.Connection):
    """Counts requests sent: a pipeline or a script call is one."""

    sent = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        CountingConnection.sent += 1
        super().send_packed_command(command, check_health)


@dataclass
class Delivery:
    node: str
    outcome: Outcome
    statements: int
    redis_trips: int
    publishes: int


@dataclass
class RecordingDispatcher:
    queue: list[Mapping[str, Any]] = field(default_factory=list)
    publishes: int = 0

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.publishes += 1
        self.queue.append(payload)

    def nodes(self, payloads: Sequence[Mapping[str, Any]]) -> None:
        self.publishes += 1
        self.queue.extend(payloads)

    def drain(self, env: EngineEnv) -> list[Delivery]:
        done: list[Delivery] = []
        while self.queue:
            task = parse_node_task(self.queue.pop(0))
            sql, trips, publishes = statement_count(), CountingConnection.sent, self.publishes
            outcome = run_node(env, task)
            done.append(
                Delivery(
                    str(task.node),
                    outcome,
                    statement_count() - sql,
                    CountingConnection.sent - trips,
                    self.publishes - publishes,
                )
            )
            assert len(done) < 10 * N, "the traversal did not converge"
        return done


@pytest.fixture
def engine(database_url: str, redis_client: object) -> tuple[EngineEnv, RecordingDispatcher]:
    settings = get_settings()
    pool = redis.ConnectionPool.from_url(settings.redis_url, connection_class=CountingConnection)
    client = redis.Redis(connection_pool=pool)
    # The counts are a steady state's: a Redis that has not seen a script yet answers its
    # first EVALSHA with NOSCRIPT, and redis-py loads it and sends it again (two trips more).
    # Whether an earlier test of this process loaded them must not decide this test.
    for script in Path(syncpoint.__file__).parent.glob("*.lua"):
        client.script_load(script.read_text())
    store = SyncPointStore(client, prefix=settings.redis_prefix, ttl=3600)
    dispatcher = RecordingDispatcher()
    env = default_env(dispatcher)
    env.syncpoints = store
    return env, dispatcher


def _chain(rev: int) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for i in range(N):
        body: dict[str, Any] = {"type": "OS::Heat::None", "properties": {"rev": rev}}
        if i:
            body["depends_on"] = [f"r{i - 1}"]
        resources[f"r{i}"] = body
    return template(resources)


def _status(stack_id: str) -> str:
    with session_scope() as session:
        return Stacks(session).get(stack_id).state


def _steady(deliveries: list[Delivery]) -> list[Delivery]:
    # The delivery that finishes the traversal also completes the stack (its own statements).
    return deliveries[:-1]


def test_create_update_delete_cost_a_constant_per_node(
    engine: tuple[EngineEnv, RecordingDispatcher],
) -> None:
    env, dispatcher = engine
    tenant = f"cost-{uuid.uuid4().hex[:6]}"
    stack_id = create_stack(env, tenant=tenant, name="chain", template=_chain(1), parameters={})

    created = dispatcher.drain(env)
    assert _status(stack_id) == "CREATE_COMPLETE"
    # Only update nodes ran: the clean-ups with nothing to purge were settled in Redis.
    assert [d.node for d in created] == [f"update:r{i}" for i in range(N)]
    assert {d.outcome for d in created} == {Outcome.COMPLETE}
    for d in _steady(created):
        assert (d.statements, d.redis_trips, d.publishes) == (2, 1, 1), d

    update_stack(env, tenant=tenant, stack_ref=stack_id, template=_chain(2), parameters={})
    updated = dispatcher.drain(env)
    assert _status(stack_id) == "UPDATE_COMPLETE"
    assert [d.node for d in updated] == [f"update:r{i}" for i in range(N)]
    for d in _steady(updated):
        # claim, the new version, the outcome (which also purges the replaced version).
        assert (d.statements, d.redis_trips, d.publishes) == (3, 1, 1), d
    rows = resource_rows(stack_id)
    assert sorted((r.name, r.version) for r in rows) == sorted((f"r{i}", 1) for i in range(N))

    delete_stack(env, tenant=tenant, stack_ref=stack_id)
    deleted = dispatcher.drain(env)
    assert [d.node for d in deleted] == [f"cleanup:r{i}" for i in reversed(range(N))]
    for d in _steady(deleted):
        assert (d.statements, d.redis_trips, d.publishes) == (2, 1, 1), d
    assert resource_rows(stack_id) == []


def test_fan_out_publishes_every_successor_in_one_batch(
    engine: tuple[EngineEnv, RecordingDispatcher],
) -> None:
    env, dispatcher = engine
    middle = {f"m{i}": {"type": "OS::Heat::None", "depends_on": ["root"]} for i in range(N)}
    tmpl = template(
        {
            "root": {"type": "OS::Heat::None"},
            **middle,
            "sink": {"type": "OS::Heat::None", "depends_on": list(middle)},
        }
    )
    stack_id = create_stack(
        env, tenant=f"fan-{uuid.uuid4().hex[:6]}", name="fan", template=tmpl, parameters={}
    )
    deliveries = dispatcher.drain(env)
    assert _status(stack_id) == "CREATE_COMPLETE"
    assert len(deliveries) == N + 2
    root = deliveries[0]
    assert root.node == "update:root" and root.publishes == 1 and root.redis_trips == 1
    # Middles that did not complete the sink publish nothing at all.
    assert sum(1 for d in deliveries if d.node.startswith("update:m") and d.publishes) == 1


def test_a_replaced_resource_still_gets_its_clean_up(
    engine: tuple[EngineEnv, RecordingDispatcher],
) -> None:
    env, dispatcher = engine
    tenant = f"repl-{uuid.uuid4().hex[:6]}"
    v1 = template({"a": {"type": "OS::Heat::None"}, "b": {"type": "OS::Heat::None"}})
    stack_id = create_stack(env, tenant=tenant, name="repl", template=v1, parameters={})
    dispatcher.drain(env)
    v2 = template({"a": {"type": "OS::Heat::RandomString"}, "b": {"type": "OS::Heat::None"}})
    update_stack(env, tenant=tenant, stack_ref=stack_id, template=v2, parameters={})
    deliveries = dispatcher.drain(env)
    assert _status(stack_id) == "UPDATE_COMPLETE"
    assert sorted(d.node for d in deliveries) == ["cleanup:a", "update:a", "update:b"]
    assert sorted((r.name, r.version, r.type) for r in resource_rows(stack_id)) == [
        ("a", 1, "OS::Heat::RandomString"),
        ("b", 0, "OS::Heat::None"),
    ]
