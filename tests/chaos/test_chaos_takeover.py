"""A worker hangs mid-create, an update takes its action over: the stack ends with the update's
values, in the stored version and in the real object, with one object (issue 18).

Worker A starts a slow create and hangs (SIGSTOP on its whole process group, after it was
told to take no more messages, as a host that stops answering would). The stack is updated
to a new value. When A's lease has run out, worker B's update node takes the resource over:
it resumes A's create with the same token, and once that create finishes it converges afresh
to the update's definition. A, continued at the end, writes nothing.

A cluster of its own (database, Redis, broker): the session's beat must not resume this
stack, and the session's workers must not take its messages.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from private_services import PrivateRedis, celery_app, fresh_database, wait_for_workers
from sealed_rows import opened
from sqlalchemy import select

from conv_tasks.broker.options import conv_tasks_queues
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.models import Event, Resource, SandboxObject
from conv_tasks.db.session import session_scope

LOCK_TTL = 6.0
CREATE_SECS = 20.0  # A's create: long enough to hang A in the middle of it


@dataclass
class Cluster:
    processes: CeleryProcesses
    app: Celery
    client: Client
    database_url: str


@pytest.fixture
def cluster(
    database_url: str, broker_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Cluster]:
    redis_server = PrivateRedis()
    redis_server.start()
    own_database = fresh_database(database_url, "takeover")
    if broker_url.startswith("redis"):
        broker = redis_server.url(0)
    else:
        broker = request.getfixturevalue("private_rabbitmq_url")
    env = {
        "CONV_TASKS_DATABASE_URL": own_database,
        "CONV_TASKS_BROKER_URL": broker,
        "CONV_TASKS_REDIS_URL": redis_server.url(1),
        "CONV_TASKS_RESULT_BACKEND": redis_server.url(2),
        "CONV_TASKS_REDIS_PREFIX": f"takeover-{uuid.uuid4().hex[:6]}",
        "CONV_TASKS_LOCK_TTL": str(LOCK_TTL),
    }
    processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
    app = celery_app(env)
    try:
        yield Cluster(processes, app, Client(app, tenant="takeover", timeout=30), own_database)
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()
        redis_server.stop()


def _template(value: str) -> dict[str, Any]:
    body = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": value, "action_wait_secs": {"create": CREATE_SECS}},
    }
    return {"heat_template_version": "2018-08-31", "resources": {"r0": body}}


def _events(url: str, stack_id: str) -> list[tuple[str | None, str, str]]:
    with session_scope(url) as session:
        rows = session.scalars(select(Event).where(Event.stack_id == stack_id).order_by(Event.id))
        return [(e.resource_name, e.action, e.status) for e in rows]


def _wait_for(url: str, stack_id: str, event: tuple[str, str, str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while event not in _events(url, stack_id):
        assert time.monotonic() < deadline, f"{event} never happened"
        time.sleep(0.2)


def _state(url: str, stack_id: str) -> tuple[list[Resource], list[SandboxObject]]:
    with session_scope(url) as session:
        rows = list(session.scalars(select(Resource).where(Resource.stack_id == stack_id)))
        objects = list(
            session.scalars(select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%")))
        )
        session.expunge_all()
    return rows, objects


def _assert_holds_v2(url: str, stack_id: str) -> None:
    rows, objects = _state(url, stack_id)
    [head] = [r for r in rows if r.replaced_by is None]
    assert (head.action, head.status) == ("UPDATE", "COMPLETE"), (head.action, head.status)
    assert opened("resource", "properties_data", head.properties_data)["value"] == "v2"
    live = [o for o in objects if not o.deleted]
    assert [o.properties["value"] for o in live] == ["v2"], [o.properties for o in objects]
    assert live[0].id == head.physical_id and live[0].create_calls == 1
    assert len(objects) == 1


def test_an_update_that_takes_over_a_hung_workers_create_ends_with_its_own_values(
    cluster: Cluster,
) -> None:
    processes, client, url = cluster.processes, cluster.client, cluster.database_url
    hung = processes.hostname("a")
    processes.start_worker("a", concurrency=1)
    wait_for_workers(cluster.app, {hung})
    stack_id = client.create("takeover", _template("v1"))["stack_id"]
    _wait_for(url, stack_id, ("r0", "CREATE", "IN_PROGRESS"))
    # A takes no new message, then hangs holding the create's lease and its queued poll.
    [node] = [n for reply in cluster.app.control.ping(timeout=1.0) for n in reply]
    for queue in conv_tasks_queues():
        answer = cluster.app.control.cancel_consumer(queue.name, destination=[node], reply=True)
        assert answer and "ok" in answer[0][node], answer
    processes.pause("a")
    try:
        processes.start_worker("b", concurrency=2)
        wait_for_workers(cluster.app, {processes.hostname("b")})
        client.update(stack_id, _template("v2"))
        final = client.wait(stack_id, timeout=CREATE_SECS + 60, interval=0.3)
        assert final["status"] == "UPDATE_COMPLETE", final
        _assert_holds_v2(url, stack_id)
        r0 = [e for e in _events(url, stack_id) if e[0] == "r0"]
        assert r0[-2:] == [("r0", "UPDATE", "IN_PROGRESS"), ("r0", "UPDATE", "COMPLETE")], r0
    finally:
        processes.resume("a")
    # A comes back: its lease was taken over, so its poll writes nothing.
    before = _events(url, stack_id)
    time.sleep(LOCK_TTL / 2)
    assert _events(url, stack_id) == before
    _assert_holds_v2(url, stack_id)
