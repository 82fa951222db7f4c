"""A conv_tasks worker killed between sending a create task and recording its step leaves
exactly one record in the other service (issue 21), and none once the stack is deleted
instead (issue 31).

Sending is the one thing that can happen twice: the worker dies after send_task, before
its step is written, and the node's message is delivered again to another worker, which
starts the create again with the same token. To kill the worker at exactly that moment,
the cluster's database holds the step's write: a trigger on the resource table waits, for
the first write on the resource once its create is recorded as begun (which the engine
writes before the type acts: the step's outcome), on an advisory lock the test holds. Once
a session waits there, the task was sent; the test kills the worker's whole process group,
ends the waiting session (so the write never lands) and lets go.

- The service ran the task meanwhile: the second worker finds its result and does not send
  it again. One record, one run.
- No service worker was up: the task is still PENDING, so the second worker sends it again,
  as the same task with the same idempotency key; the service runs both and deduplicates.
  One record, two runs.
- The stack is deleted instead of resumed: the resource has no id (the create's result
  never reached it), so its delete finds the record by the create's token (the create
  task's result) and sends the delete task for it. No record left.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import celery_task_service as svc
import psycopg
import pytest
from celery_task_world import (
    CONNECTION,
    Cluster,
    ServiceWorld,
    call,
    task_resource,
    template,
    wait_until,
)
from sqlalchemy.engine import make_url

from conv_tasks.client import Client
from conv_tasks.resources.builtin.celery_task.call import task_id_for

pytestmark = pytest.mark.broker("redis", reason="its brokers are private Redis servers")

HOLD = 2121  # the advisory lock the trigger waits on

_TRIGGER = f"""
CREATE FUNCTION test_hold_the_create_step() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.name = 'record' AND OLD.action = 'CREATE' AND OLD.status = 'IN_PROGRESS'
     AND OLD.physical_id IS NULL
  THEN
    PERFORM pg_advisory_xact_lock_shared({HOLD});
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER test_hold_the_create_step BEFORE UPDATE ON resource
  FOR EACH ROW EXECUTE FUNCTION test_hold_the_create_step();
"""


def _connect(url: str) -> psycopg.Connection[Any]:
    parsed = make_url(url)
    return psycopg.connect(
        host=parsed.host,
        port=parsed.port or 5432,
        user=parsed.username,
        password=parsed.password,
        dbname=parsed.database,
        autocommit=True,
    )


def _install_trigger(url: str) -> None:
    with _connect(url) as conn:
        conn.execute(_TRIGGER)


@pytest.fixture(scope="module")
def cluster(database_url: str, service: ServiceWorld) -> Iterator[Cluster]:
    world = Cluster.start(
        database_url,
        service,
        suffix="celerytaskkill",
        workers=0,
        own_broker_service=False,
        prepare_database=_install_trigger,
        # The killed worker's node is sent again by the watchdog once its traversal has not
        # moved for a few seconds (the broker gives its message back much later).
        beat=True,
        extra_env={
            "CONV_TASKS_LOCK_TTL": "4",
            "CONV_TASKS_STALL_AFTER": "6",
            "CONV_TASKS_WATCHDOG_INTERVAL": "1",
        },
    )
    try:
        yield world
    finally:
        world.stop()


def _held_sessions(conn: psycopg.Connection[Any]) -> list[int]:
    rows = conn.execute(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = %s"
        " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        (HOLD,),
    ).fetchall()
    return [int(row[0]) for row in rows]


def _stack() -> dict[str, Any]:
    body = task_resource(
        connection=CONNECTION,
        id_path="id",
        create=call(svc.CREATE, name="once"),
        delete=call(svc.DELETE),
    )
    return template({"record": body})


def _killed_after_sending(
    cluster: Cluster, client: Client, service: ServiceWorld, *, service_up: bool
) -> str:
    """Create the stack (as `client`'s tenant) on worker `a` and kill it once its create task
    was sent (and, with the service up, answered), before the step was recorded; its id."""
    processes = cluster.processes
    with _connect(cluster.database_url) as hold:
        hold.execute("SELECT pg_advisory_lock(%s)", (HOLD,))
        processes.start_worker("a", concurrency=1)
        stack_id = str(client.create("killed", _stack())["stack_id"])
        [waiting] = wait_until("the create step's write", lambda: _held_sessions(hold))
        # The task was sent: its write waits. The worker dies there, its write with it.
        if service_up:
            app = service.app()
            wait_until(
                "the service's answer",
                lambda: any(
                    app.AsyncResult(task_id_for(r["created_by"])).state == "SUCCESS"
                    for r in service.records_by(f"{stack_id}:")
                ),
            )
        processes.kill("a")
        hold.execute("SELECT pg_terminate_backend(%s)", (waiting,))
        hold.execute("SELECT pg_advisory_unlock(%s)", (HOLD,))
    return stack_id


@pytest.mark.parametrize("service_up", [True, False], ids=["service-up", "service-down"])
def test_a_worker_killed_after_sending_the_create_leaves_one_record(
    cluster: Cluster, service: ServiceWorld, service_up: bool
) -> None:
    processes = cluster.processes
    client = cluster.client()
    if not service_up:
        service.workers.stop_all(timeout=10)
    stack_id = _killed_after_sending(cluster, client, service, service_up=service_up)
    token = f"{stack_id}:"
    try:
        processes.start_worker("b", concurrency=2)
        if not service_up:
            # The create was started again and, its task still PENDING, sent again as the
            # same task: two messages wait for the service.
            queued = service.redis.client(0)
            wait_until("the second send", lambda: queued.llen(svc.QUEUE) == 2)
            service.workers.start_worker("svc", concurrency=2)
        final = client.wait(stack_id, timeout=120, interval=0.3)
        assert final["status"] == "CREATE_COMPLETE", final

        [record] = service.records_by(token)
        runs = service.calls(svc.CREATE, token)
        assert len(runs) == (1 if service_up else 2), runs
        assert {run["key"] for run in runs} == {record["created_by"]}
        [resource] = client.resources(stack_id)
        assert resource["physical_id"] == record["id"]

        client.delete(stack_id)
        assert client.wait(stack_id, timeout=60, interval=0.3)["status"] == "DELETE_COMPLETE"
        assert service.records_by(token) == []
    finally:
        processes.kill("b")
        if not service_up:
            service.workers.start_worker("svc", concurrency=2)


def test_a_stack_deleted_after_its_worker_died_mid_create_leaves_no_record(
    cluster: Cluster, service: ServiceWorld
) -> None:
    processes = cluster.processes
    client = cluster.client()
    stack_id = _killed_after_sending(cluster, client, service, service_up=True)
    token = f"{stack_id}:"
    [made] = service.records_by(token)
    try:
        processes.start_worker("b", concurrency=2)
        client.delete(stack_id)
        final = client.wait(stack_id, timeout=120, interval=0.3)
        assert final["status"] == "DELETE_COMPLETE", final
        assert service.records_by(token) == []
        [deleted] = service.calls(svc.DELETE, token)
        assert deleted["kwargs"] == {"id": made["id"]}
        assert deleted["key"].endswith(":DELETE")
    finally:
        processes.kill("b")
