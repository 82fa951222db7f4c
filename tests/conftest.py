"""Shared fixtures: real PostgreSQL, Redis and Celery worker processes.

The environment is set here, before conv_tasks reads its settings, so that
the tests, the worker processes they start and beat all use a test database,
their own Redis databases and a key prefix of this run. Pure-logic tests
use none of these fixtures and need no services.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_ID = uuid.uuid4().hex[:8]

TEST_ENV = {
    "CONV_TASKS_DATABASE_URL": os.environ.get(
        "CONV_TASKS_TEST_DATABASE_URL",
        "postgresql+psycopg2://postgres@127.0.0.1:5432/conv_tasks_test",
    ),
    "CONV_TASKS_BROKER_URL": "redis://127.0.0.1:6379/13",
    "CONV_TASKS_REDIS_URL": "redis://127.0.0.1:6379/14",
    "CONV_TASKS_RESULT_BACKEND": "redis://127.0.0.1:6379/12",
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


class WorkerPool:
    """Real `celery worker` processes, started and stopped by the tests."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *, concurrency: int = 2) -> subprocess.Popen[bytes]:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the worker
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "conv_tasks.tasks.app",
                "worker",
                "--loglevel",
                "INFO",
                "--concurrency",
                str(concurrency),
                "--pool",
                "prefork",
                "--hostname",
                f"{name}-{RUN_ID}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env={**os.environ, **TEST_ENV},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs[name] = proc
        return proc

    def start_beat(self, name: str = "beat") -> subprocess.Popen[bytes]:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "conv_tasks.tasks.app",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(self.log_dir / "celerybeat-schedule"),
            ],
            cwd=ROOT,
            env={**os.environ, **TEST_ENV},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs[name] = proc
        return proc

    def kill(self, name: str) -> None:
        """SIGKILL a worker and all its pool children, as a crashed host would die."""
        import signal

        proc = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        import signal

        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        self.procs.clear()

    def wait_ready(self, timeout: float = 60.0) -> None:
        from conv_tasks.tasks.app import app

        deadline = time.monotonic() + timeout
        names = {n for n in self.procs if n != "beat"}
        while time.monotonic() < deadline:
            replies = app.control.ping(timeout=1.0) or []
            up = {next(iter(r)).split("-")[0] for r in replies}
            if names <= up:
                return
            time.sleep(0.5)
        raise RuntimeError(f"workers {sorted(names)} did not start; logs in {self.log_dir}")


@pytest.fixture(scope="session")
def workers(
    database_url: str, redis_client: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerPool]:
    """Two worker processes (two pool children each) and beat, for the whole session."""
    import redis

    redis.Redis.from_url(TEST_ENV["CONV_TASKS_BROKER_URL"]).flushdb()
    pool = WorkerPool(tmp_path_factory.mktemp("workers"))
    pool.start("w1")
    pool.start("w2")
    pool.start_beat()
    try:
        pool.wait_ready()
        yield pool
    finally:
        pool.stop_all()
