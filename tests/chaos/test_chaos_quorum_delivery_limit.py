"""A quorum queue's delivery limit drops a node message; the watchdog resumes the traversal.

RabbitMQ 3.10 to 3.13 set no delivery limit on a quorum queue; from 4.0 a
message returned 20 times (its worker killed each time) is dropped
(docs/operations/rabbitmq.md, "What quorum queues do not do"). This shows what conv_tasks
does then, on a vhost of the test's own whose node queue has a policy with a
delivery limit of 0, so one return drops a message: a worker that consumes
requests only plans a stack; a consumer takes the nodes' messages and dies
(its connection closes) without acknowledging them, and RabbitMQ drops them
instead of giving them back. The node queue is empty, and the stack stalls
until the watchdog resumes it from PostgreSQL; it completes, each resource
created once.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from kombu import Connection
from private_services import celery_app, fresh_database, wait_for_workers
from sqlalchemy import select

from conv_tasks.broker.options import NODE_QUEUE
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope

pytestmark = pytest.mark.broker("rabbitmq", reason="delivery limits are quorum queues'")

WIDTH = 3
# Name, queue pattern and definition: one return drops a message of the node queue.
POLICY = ["node-delivery-limit", r"^conv_tasks\.nodes$", '{"delivery-limit": 0}']
STALL_AFTER = 6.0  # the watchdog resumes a traversal that stopped this long


def _ready(url: str) -> int:
    with Connection(url) as conn:
        return int(conn.default_channel.queue_declare(NODE_QUEUE, passive=True)[1])


def test_a_node_message_dropped_at_its_delivery_limit_is_resumed_by_the_watchdog(
    database_url: str, redis_client: object, private_rabbitmq_url: str, tmp_path: Path
) -> None:
    vhost = unquote(urlsplit(private_rabbitmq_url).path[1:])
    subprocess.run(
        ["rabbitmqctl", "-q", "set_policy", "-p", vhost, "--apply-to", "queues", *POLICY],
        check=True,
        capture_output=True,
        timeout=60,
    )
    env = {
        **os.environ,
        "CONV_TASKS_BROKER_URL": private_rabbitmq_url,
        "CONV_TASKS_RABBITMQ_QUEUE_TYPE": "quorum",
        # A database of its own: no other beat's watchdog helps.
        "CONV_TASKS_DATABASE_URL": fresh_database(database_url, "limit"),
        "CONV_TASKS_REDIS_PREFIX": f"limit-{uuid.uuid4().hex[:6]}",
        "CONV_TASKS_STALL_AFTER": str(STALL_AFTER),
    }
    processes = CeleryProcesses(tmp_path, env=env, suffix=uuid.uuid4().hex[:6])
    app = celery_app(env)
    try:
        processes.start_worker("w", concurrency=2)
        wait_for_workers(app, {processes.hostname("w")})
        [node] = [n for reply in app.control.ping(timeout=1.0) for n in reply]
        answer = app.control.cancel_consumer(NODE_QUEUE, destination=[node], reply=True)
        assert answer and "ok" in answer[0][node], answer

        client = Client(app, tenant=f"limit-{uuid.uuid4().hex[:6]}", timeout=30)
        resources = {
            f"r{i}": {"type": "OS::Heat::TestResource", "properties": {"value": str(i)}}
            for i in range(WIDTH)
        }
        template = {"heat_template_version": "2018-08-31", "resources": resources}
        stack_id = client.create("limit", template)["stack_id"]
        assert _ready(private_rabbitmq_url) == WIDTH  # the first nodes, waiting

        # A worker that takes them and dies before acknowledging any.
        with Connection(private_rabbitmq_url) as conn:
            channel = conn.channel()
            channel.basic_qos(0, WIDTH, False)
            taken: list[object] = []
            channel.basic_consume(NODE_QUEUE, callback=taken.append)
            while len(taken) < WIDTH:
                conn.drain_events(timeout=10)
        assert _ready(private_rabbitmq_url) == 0  # dropped, not given back

        # Workers take the node queue again (and beat watches): the watchdog resumes the stack.
        answer = app.control.add_consumer(NODE_QUEUE, destination=[node], reply=True)
        assert answer and "ok" in answer[0][node], answer
        processes.start_beat()
        final = client.wait(stack_id, timeout=STALL_AFTER + 60, interval=0.3)
        assert final["status"] == "CREATE_COMPLETE", final
        watchdog = [e for e in client.events(stack_id) if "watchdog" in e["reason"]]
        assert watchdog, client.events(stack_id)
        with session_scope(env["CONV_TASKS_DATABASE_URL"]) as session:
            tokens = list(
                session.scalars(
                    select(SandboxObject.token).where(SandboxObject.token.like(f"{stack_id}:%"))
                )
            )
        creates = [t for t in tokens if t.endswith(":CREATE")]
        assert len(creates) == len(set(creates)) == WIDTH, tokens
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()
