"""PostgreSQL restarted mid-traversal: the nodes ride it out, the watchdog is never needed.

Runs on a private PostgreSQL cluster (so it can be stopped) and a private
Redis (the broker and the SyncPoints, which stay up), with real worker
processes and beat. Each node that meets the outage retries by itself with a
jittered backoff and says so in one line; the traversal finishes on its own,
every resource is created once, and no log holds a traceback.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from private_services import (
    PrivatePostgres,
    PrivateRedis,
    celery_app,
    layered_template,
    log_text,
    wait_for_workers,
)
from sqlalchemy import select

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.migrate import upgrade
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import get_engine, session_scope

WIDTH, DEPTH, WAIT = 8, 8, 0.6  # 64 resources, eight layers of 0.6 s actions
OUTAGE_AFTER = 2.0  # seconds into the traversal
OUTAGE = 4.0  # seconds PostgreSQL stays down
RETRY_LINE = re.compile(r"node \S+ of traversal \S+: \w+ \(.*\); trying again in")


@dataclass
class Cluster:
    postgres: PrivatePostgres
    processes: CeleryProcesses
    client: Client


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    postgres = PrivatePostgres()
    broker = PrivateRedis()
    processes: CeleryProcesses | None = None
    try:
        postgres.init()
        postgres.start()
        postgres.create_database()
        upgrade(postgres.url)
        broker.start()
        env = {
            "CONV_TASKS_DATABASE_URL": postgres.url,
            "CONV_TASKS_BROKER_URL": broker.url(0),
            "CONV_TASKS_REDIS_URL": broker.url(1),
            "CONV_TASKS_RESULT_BACKEND": broker.url(2),
            "CONV_TASKS_REDIS_PREFIX": "chaos-pg",
            "CONV_TASKS_LOCK_TTL": "4",
            "CONV_TASKS_POLL_INTERVAL": "0.2",
            "CONV_TASKS_WATCHDOG_INTERVAL": "1",
            # Well past the outage and the backoff after it, well inside the test's time: a
            # traversal that lost a node to the outage is restarted, and the test sees it.
            "CONV_TASKS_STALL_AFTER": "25",
            "CONV_TASKS_VISIBILITY_TIMEOUT": "30",
        }
        processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
        processes.start_worker("w1")
        processes.start_worker("w2")
        processes.start_beat()
        app = celery_app(env)
        wait_for_workers(app, {processes.hostname("w1"), processes.hostname("w2")})
        client = Client(app, tenant=f"pg-{uuid.uuid4().hex[:6]}", timeout=30)
        yield Cluster(postgres, processes, client)
    finally:
        if processes is not None:
            processes.stop_all()
        get_engine(postgres.url).dispose()
        broker.stop()
        postgres.destroy()


def test_postgres_restart_mid_traversal_completes_without_the_watchdog(cluster: Cluster) -> None:
    client, postgres = cluster.client, cluster.postgres
    started = time.monotonic()
    stack_id = client.create("pg-restart", layered_template(WIDTH, DEPTH, WAIT))["stack_id"]
    time.sleep(OUTAGE_AFTER)
    down = time.monotonic()
    postgres.stop("fast")  # ends every session at once, as a restart does
    time.sleep(OUTAGE)
    postgres.start()
    outage = time.monotonic() - down

    final = client.wait(stack_id, timeout=60, interval=0.3)
    took = time.monotonic() - started
    logs = log_text(cluster.processes.log_dir)
    everything = "\n".join(logs.values())
    retries = RETRY_LINE.findall(everything)
    print(
        f"\noutage {outage:.1f}s; stack {final['status']} after {took:.1f}s; "
        f"{len(retries)} node retries logged"
    )

    assert final["status"] == "CREATE_COMPLETE", final
    with session_scope(postgres.url) as session:
        objects = list(
            session.scalars(select(SandboxObject).where(SandboxObject.token.like(f"{stack_id}:%")))
        )
    creates = [o for o in objects if o.token.endswith(":CREATE")]
    assert len(creates) == WIDTH * DEPTH, sorted(o.token for o in objects)
    assert not any(o.deleted for o in creates)
    assert all(o.create_calls >= 1 for o in creates)
    watchdog = [e["reason"] for e in client.events(stack_id) if "watchdog" in e["reason"]]
    assert not watchdog, f"the traversal waited for the watchdog: {watchdog}"
    assert "resumed from the database by the watchdog" not in everything
    traced = {name: text.count("Traceback") for name, text in logs.items() if "Traceback" in text}
    assert not traced, {name: logs[name][-4000:] for name in traced}
    # The outage did reach the nodes, and each retry was one line.
    assert retries, "no node met the outage: it came too late or too early"
