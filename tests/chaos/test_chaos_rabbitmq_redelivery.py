"""RabbitMQ keeps the queue: every worker killed mid-traversal, and new ones finish it alone.

The shared RabbitMQ server must not be restarted, so this proves what can be
done safely on a vhost of the test's own: with a traversal in flight, every
worker process is SIGKILLed at once (as a host dies). The messages they held
unacknowledged go back to the durable queue the moment their connections
drop, and the messages waiting there stay; workers started afterwards take
them and the traversal finishes with no help from the watchdog (which beat
runs all along, so a lost message would show as its restart), every
resource created exactly once.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from celery import Celery
from private_services import (
    celery_app,
    fresh_database,
    layered_template,
    log_text,
    wait_for_workers,
)
from sqlalchemy import select

from conv_tasks.broker.options import NODE_QUEUE
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope

pytestmark = pytest.mark.broker(
    "rabbitmq",
    reason="on Redis the messages killed workers held come back only after the visibility "
    "timeout, so the watchdog resumes the traversal first; this measures RabbitMQ's redelivery",
)

WIDTH, DEPTH, WAIT = 4, 4, 0.6  # 16 resources, four layers of 0.6 s actions
STALL_AFTER = 20.0  # the watchdog would resume a traversal that stopped this long


@dataclass
class Cluster:
    processes: CeleryProcesses
    app: Celery
    client: Client
    env: dict[str, str]
    database_url: str


@pytest.fixture
def cluster(
    database_url: str, redis_client: object, private_rabbitmq_url: str, tmp_path: Path
) -> Iterator[Cluster]:
    # A database of its own: the session's beat, whose watchdog resumes any stack in its
    # database that stalls for 8 s, must not help (new workers can take that long to start).
    # The rest of the environment is the test run's (tests/conftest.py), its Redis and results
    # named here too: the client app (celery_app) reads only this env, and a result the workers
    # store elsewhere would never reach it.
    own_database = fresh_database(database_url, "amqp")
    env = {
        "CONV_TASKS_REDIS_URL": os.environ["CONV_TASKS_REDIS_URL"],
        "CONV_TASKS_RESULT_BACKEND": os.environ["CONV_TASKS_RESULT_BACKEND"],
        "CONV_TASKS_DATABASE_URL": own_database,
        "CONV_TASKS_BROKER_URL": private_rabbitmq_url,
        "CONV_TASKS_REDIS_PREFIX": f"chaos-amqp-{uuid.uuid4().hex[:6]}",
        "CONV_TASKS_STALL_AFTER": str(STALL_AFTER),
    }
    processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
    app = celery_app(env)
    try:
        processes.start_worker("w1")
        processes.start_worker("w2")
        processes.start_beat()
        wait_for_workers(app, {processes.hostname("w1"), processes.hostname("w2")})
        client = Client(app, tenant=f"amqp-{uuid.uuid4().hex[:6]}", timeout=30)
        yield Cluster(processes, app, client, env, own_database)
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()


def _queued(app: Celery) -> int:
    """Messages ready in the node queue (a passive declare: it must already exist)."""
    with app.connection_for_write() as conn:
        _name, ready, _consumers = conn.default_channel.queue_declare(NODE_QUEUE, passive=True)
    return int(ready)


def test_killed_workers_messages_wait_in_the_queue_for_new_workers(cluster: Cluster) -> None:
    client, processes = cluster.client, cluster.processes
    stack_id = client.create("amqp-kill", layered_template(WIDTH, DEPTH, WAIT))["stack_id"]
    time.sleep(1.5)  # the first layer's actions are under way: polls in flight, held by workers
    processes.kill("w1")
    processes.kill("w2")
    killed = time.monotonic()
    time.sleep(1.0)
    # Nobody consumes now: what the workers held is back in the queue, waiting.
    waiting = _queued(cluster.app)
    assert waiting > 0, "nothing was left in the queue; the kill came too late"
    processes.start_worker("w3")
    processes.start_worker("w4")

    final = client.wait(stack_id, timeout=STALL_AFTER + 30, interval=0.3)
    took = time.monotonic() - killed
    print(f"\n{waiting} messages waited for new workers; stack {final['status']} {took:.1f}s later")

    assert final["status"] == "CREATE_COMPLETE", final
    watchdog = [e for e in client.events(stack_id) if "watchdog" in e["reason"]]
    assert not watchdog, watchdog
    logs = "\n".join(log_text(processes.log_dir).values())
    assert "resumed from the database by the watchdog" not in logs
    with session_scope(cluster.database_url) as session:
        objects = list(
            session.scalars(select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%")))
        )
    creates = [o for o in objects if o.token.endswith(":CREATE")]
    assert len(creates) == WIDTH * DEPTH, sorted(o.token for o in objects)
    assert len({o.token for o in creates}) == WIDTH * DEPTH
    assert not any(o.deleted for o in creates)
