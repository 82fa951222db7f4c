"""Shared fixtures: real PostgreSQL, Redis and Celery worker processes.

The environment is set here, before conv_tasks reads its settings, so that
the tests, the worker processes they start and beat all use a test database,
their own Redis databases and a key prefix of this run. Pure-logic tests
use none of these fixtures and need no services.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conv_tasks.celery_processes import CeleryProcesses

ROOT = Path(__file__).resolve().parent.parent
RUN_ID = uuid.uuid4().hex[:8]

TEST_ENV = {
    "CONV_TASKS_DATABASE_URL": os.environ.get(
        "CONV_TASKS_TEST_DATABASE_URL",
        "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_test",
    ),
    # CONV_TASKS_TEST_BROKER_URL chooses the broker (amqp://... for RabbitMQ); the other two let
    # test runs side by side keep to their own Redis databases.
    "CONV_TASKS_BROKER_URL": os.environ.get(
        "CONV_TASKS_TEST_BROKER_URL", "redis://127.0.0.1:6379/13"
    ),
    "CONV_TASKS_REDIS_URL": os.environ.get(
        "CONV_TASKS_TEST_REDIS_URL", "redis://127.0.0.1:6379/14"
    ),
    "CONV_TASKS_RESULT_BACKEND": os.environ.get(
        "CONV_TASKS_TEST_RESULT_BACKEND", "redis://127.0.0.1:6379/12"
    ),
    "CONV_TASKS_REDIS_PREFIX": f"test-{RUN_ID}",
    "CONV_TASKS_LOCK_TTL": "4",
    "CONV_TASKS_STALL_AFTER": "8",
    "CONV_TASKS_WATCHDOG_INTERVAL": "1",
    "CONV_TASKS_GC_INTERVAL": "2",
    "CONV_TASKS_POLL_INTERVAL": "0.2",
    "CONV_TASKS_VISIBILITY_TIMEOUT": "15",
}
os.environ.update(TEST_ENV)


def _services() -> None:
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)


@pytest.fixture(scope="session")
def database_url() -> str:
    """A freshly created, migrated test database."""
    _services()
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from conv_tasks.db.migrate import upgrade

    url = TEST_ENV["CONV_TASKS_DATABASE_URL"]
    target = make_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()
    upgrade(url)
    return url


@pytest.fixture(scope="session")
def redis_client() -> object:
    _services()
    import redis

    client = redis.Redis.from_url(TEST_ENV["CONV_TASKS_REDIS_URL"])
    client.ping()
    return client


@pytest.fixture(scope="session")
def workers(
    database_url: str, redis_client: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CeleryProcesses]:
    """Two worker processes (two pool children each) and beat, for the whole session."""
    import redis

    from conv_tasks.celery_processes import CeleryProcesses

    redis.Redis.from_url(TEST_ENV["CONV_TASKS_BROKER_URL"]).flushdb()
    pool = CeleryProcesses(tmp_path_factory.mktemp("workers"), env=TEST_ENV, suffix=RUN_ID)
    pool.start_worker("w1")
    pool.start_worker("w2")
    pool.start_beat()
    try:
        pool.wait_ready()
        yield pool
    finally:
        pool.stop_all()
