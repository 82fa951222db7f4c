"""Fixtures of the fuzz suite: a worker of its own, on a broker and a database of its own.

The suite sends messages meant to stop a worker. One that does must fail the
test that sent it, not every test after it, and must not stop the workers the
rest of the session shares: the worker here takes messages from a private
Redis (tests/chaos/private_services.py), on which no other worker listens, and
a test finds it answering or gets a new one. Its database is created beside
the session's test database (same server, `<name>_fuzz`), so that row counts
before and after a batch move only with what the batch did, never with a
traversal or a template collection another test left running.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "chaos"))

from fuzz_support import FuzzCluster
from private_services import PrivateRedis, celery_app, fresh_database

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client

RUN = uuid.uuid4().hex[:6]


@pytest.fixture(scope="session")
def fuzz_cluster(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The fuzz worker (prefork, two children, task events on), for the whole session."""
    broker = PrivateRedis()
    processes: CeleryProcesses | None = None
    engine = None
    try:
        broker.start()
        url = fresh_database(database_url, "fuzz")
        env = {
            "CONV_TASKS_DATABASE_URL": url,
            "CONV_TASKS_BROKER_URL": broker.url(0),
            "CONV_TASKS_REDIS_URL": broker.url(1),
            "CONV_TASKS_RESULT_BACKEND": broker.url(2),
            "CONV_TASKS_REDIS_PREFIX": f"fuzz-{RUN}",
            "CONV_TASKS_TASK_EVENTS": "1",
            "CONV_TASKS_POLL_INTERVAL": "0.2",
        }
        processes = CeleryProcesses(
            tmp_path_factory.mktemp("fuzz-logs"), env=env, suffix=f"fuzz{RUN}"
        )
        engine = create_engine(make_url(url).set(drivername="postgresql+psycopg"))
        cluster = FuzzCluster(processes, celery_app(env), engine)
        cluster.start()
        yield cluster
    finally:
        if processes is not None:
            processes.stop_all()
        if engine is not None:
            engine.dispose()
        broker.stop()


@pytest.fixture
def cluster(fuzz_cluster: FuzzCluster) -> FuzzCluster:
    """The fuzz worker, answering (restarted if an earlier test stopped it), log marked."""
    fuzz_cluster.restart_if_down()
    fuzz_cluster.wait_settled()
    fuzz_cluster.mark_log()
    return fuzz_cluster


@pytest.fixture
def client(cluster: FuzzCluster) -> Client:
    """A client of a fresh tenant, on the fuzz worker's broker."""
    return Client(cluster.app, tenant=f"fuzz-{uuid.uuid4().hex[:8]}", timeout=30)
