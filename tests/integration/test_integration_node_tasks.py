"""Graph-node tasks through real workers: no stored results, task events for Flower, and
transient database faults handled by retrying the node."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import redis
from integration_support import sandbox_objects, template, test_resource
from sqlalchemy import text

from conv_tasks.client import Client
from conv_tasks.db.session import dispose_engines, session_scope
from conv_tasks.settings import get_settings

NODE_TASK = "conv_tasks.node.converge"


def _listen(client: Client, seen: list[dict[str, Any]], seconds: float) -> threading.Thread:
    def listen() -> None:
        with client.app.connection_for_read() as conn:
            receiver = client.app.events.Receiver(
                conn, handlers={"*": lambda event: seen.append(dict(event))}
            )
            receiver.capture(limit=None, timeout=seconds, wakeup=True)

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    return thread


def test_node_tasks_store_no_result_and_still_report_events(client: Client) -> None:
    seen: list[dict[str, Any]] = []
    listener = _listen(client, seen, 8)
    time.sleep(1.0)
    tmpl = template({"a": test_resource("a"), "b": {**test_resource("b"), "depends_on": ["a"]}})
    created = client.create("quiet", tmpl)
    assert client.wait(created["stack_id"])["status"] == "CREATE_COMPLETE"
    listener.join(timeout=15)

    names = {e["uuid"]: e["name"] for e in seen if e.get("type") == "task-received"}
    # Only this stack's nodes: a node of an earlier test may arrive as the listener stops.
    ours = {
        e["uuid"]
        for e in seen
        if e.get("type") == "task-received" and created["stack_id"] in str(e.get("kwargs"))
    }
    node_ids = [uuid_ for uuid_, name in names.items() if name == NODE_TASK and uuid_ in ours]
    assert len(node_ids) >= 2  # Flower still sees every node run
    succeeded = {e["uuid"] for e in seen if e.get("type") == "task-succeeded"}
    assert set(node_ids) <= succeeded
    # Task-sent events are off by default: publishing costs one message, not two.
    assert not [e for e in seen if e.get("type") == "task-sent"]

    # Neither a STARTED state nor a result was written for any node.
    backend = redis.Redis.from_url(get_settings().result_backend)
    for node_id in node_ids:
        assert backend.exists(f"celery-task-meta-{node_id}") == 0
    public = [uuid_ for uuid_, name in names.items() if name == "conv_tasks.stack.create"]
    assert public and all(backend.exists(f"celery-task-meta-{p}") for p in public)


def _drop_worker_connections() -> int:
    """Terminate every other session on the test database, as a PostgreSQL restart would."""
    with session_scope() as session:
        dropped = int(
            session.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ).scalar_one()
        )
    # This process's own pooled connections went too: later in-process tests get new ones.
    dispose_engines()
    return dropped


def test_dropped_database_connections_retry_the_node_without_the_watchdog(
    client: Client,
) -> None:
    resources: dict[str, Any] = {}
    for layer in range(4):
        for i in range(3):
            body = test_resource(f"{layer}-{i}", wait_secs=0.4)
            if layer:
                body["depends_on"] = [f"r{layer - 1}_{j}" for j in range(3)]
            resources[f"r{layer}_{i}"] = body
    stack_id = client.create(f"drop-{uuid.uuid4().hex[:4]}", template(resources))["stack_id"]
    dropped = 0
    for _ in range(4):
        time.sleep(0.5)
        dropped += _drop_worker_connections()
    assert dropped > 0
    final = client.wait(stack_id, timeout=120)
    assert final["status"] == "CREATE_COMPLETE", final
    objects = [o for o in sandbox_objects(stack_id) if o.token.endswith(":CREATE")]
    # Each created once: a retried step reuses its idempotency token.
    assert len(objects) == 12 and len({o.token for o in objects}) == 12
    reasons = [e["reason"] for e in client.events(stack_id)]
    assert not [r for r in reasons if "watchdog" in r], reasons
