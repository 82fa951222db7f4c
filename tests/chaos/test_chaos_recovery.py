"""Killed workers and lost SyncPoints: the stack still converges, nothing is done twice."""

from __future__ import annotations

import time
import uuid
from typing import Any

import redis
from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import RawTemplate, SandboxObject
from conv_tasks.db.session import session_scope
from conv_tasks.settings import get_settings


def _tr(value: str, **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


def _layered(width: int, depth: int, wait: float) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for layer in range(depth):
        for i in range(width):
            body = _tr(f"{layer}-{i}", wait_secs=wait)
            if layer:
                body["depends_on"] = [f"r{layer - 1}_{j}" for j in range(width)]
            resources[f"r{layer}_{i}"] = body
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _objects(stack_id: str) -> list[SandboxObject]:
    with session_scope() as session:
        return list(
            session.scalars(select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%")))
        )


def _assert_each_created_once(stack_id: str, count: int) -> None:
    objects = _objects(stack_id)
    creates = [o for o in objects if o.token.endswith(":CREATE")]
    assert len(creates) == count, [o.token for o in objects]
    assert len({o.token for o in creates}) == count
    assert not any(o.deleted for o in creates)


def test_worker_killed_mid_traversal_still_completes(workers: Any) -> None:
    client = Client(tenant=f"chaos-{uuid.uuid4().hex[:6]}", timeout=30)
    stack_id = client.create("kill", _layered(width=3, depth=4, wait=0.6))["stack_id"]
    time.sleep(1.5)
    workers.kill("w1")  # SIGKILL the worker and its pool children
    workers.start_worker("w3")
    try:
        final = client.wait(stack_id, timeout=150)
        assert final["status"] == "CREATE_COMPLETE", final
        _assert_each_created_once(stack_id, 12)
    finally:
        workers.start_worker("w1")


def test_syncpoints_lost_from_redis_mid_traversal(workers: Any) -> None:
    client = Client(tenant=f"chaos-{uuid.uuid4().hex[:6]}", timeout=30)
    stack_id = client.create("flush", _layered(width=2, depth=4, wait=0.5))["stack_id"]
    time.sleep(1.2)
    settings = get_settings()
    store = redis.Redis.from_url(settings.redis_url)
    lost = 0
    for key in store.scan_iter(match=f"{settings.redis_prefix}:*", count=1000):
        lost += store.delete(key)
    assert lost > 0
    final = client.wait(stack_id, timeout=150)
    assert final["status"] == "CREATE_COMPLETE", final
    _assert_each_created_once(stack_id, 8)
    restarted = [e for e in client.events(stack_id) if "watchdog" in e["reason"]]
    assert restarted


def test_orphaned_templates_are_collected_by_beat(workers: Any) -> None:
    client = Client(tenant=f"gc-{uuid.uuid4().hex[:6]}", timeout=30)
    base = {"heat_template_version": "2018-08-31"}
    stack_id = client.create("gc", {**base, "resources": {"a": _tr("1")}})["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    first = client.get(stack_id)["template_id"]
    for value in ("2", "3"):
        client.update(stack_id, {**base, "resources": {"a": _tr(value)}})
        assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    with session_scope() as session:
        orphan = RawTemplate(template=base, parameters={}, files={})
        session.add(orphan)
        session.flush()
        orphan_id = orphan.id
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with session_scope() as session:
            ids = set(session.scalars(select(RawTemplate.id)))
        if orphan_id not in ids:
            break
        time.sleep(0.5)
    shown = client.get(stack_id)
    assert orphan_id not in ids
    assert first not in ids
    assert shown["template_id"] in ids and shown["previous_template_id"] in ids
