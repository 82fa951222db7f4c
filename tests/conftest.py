"""Shared fixtures: real PostgreSQL, Redis, a broker (Redis or RabbitMQ) and Celery workers.

The environment is set here, before conv_tasks reads its settings, so that
the tests, the worker processes they start and beat all use a test database,
their own Redis databases and a key prefix of this run. Pure-logic tests
use none of these fixtures and need no services.

CONV_TASKS_TEST_BROKER_URL chooses the broker. With amqp://user:password@host/
vhost the run gets a RabbitMQ virtual host of its own, `<vhost>.<run id>`
(`conv_tasks_test.<run id>` when the URL names none), created with rabbitmqctl
before the workers start and deleted after they stop, so test runs side by
side never share a queue. A test whose subject only one broker has says so
with `@pytest.mark.broker("redis" | "rabbitmq", reason=...)` and is skipped
on the other.

Under pytest-xdist (`make test` runs `-n 2`) each worker process has its own session: its
own Celery workers and beat, PostgreSQL cluster (database `<name>_gw0`), redis-server, key
prefix and vhost (tests/parallel_services.py). Without xdist the configured URLs are used as
they are.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import pytest
from cryptography.fernet import Fernet

if TYPE_CHECKING:
    from conv_tasks.celery_processes import CeleryProcesses

from parallel_services import worker_services, xdist_worker

ROOT = Path(__file__).resolve().parent.parent
# Per process, so per pytest-xdist worker too: its Celery hostnames, key prefix and vhost.
RUN_ID = uuid.uuid4().hex[:8]


def on_vhost(url: str, vhost: str) -> str:
    """The same amqp:// URL on another virtual host."""
    return urlunsplit(urlsplit(url)._replace(path="/" + quote(vhost, safe="")))


def _run_vhost(url: str) -> tuple[str, str | None]:
    """For an amqp:// URL, the same URL on this run's own virtual host, and that vhost."""
    parts = urlsplit(url)
    if parts.scheme not in ("amqp", "amqps", "pyamqp"):
        return url, None
    given = unquote(parts.path[1:]) if parts.path not in ("", "/") else "conv_tasks_test"
    vhost = f"{given}.{RUN_ID}"
    return on_vhost(url, vhost), vhost


# A pytest-xdist worker (make test runs several) replaces the configured Redis URLs with a
# redis-server of its own, and the database with one named after it on a PostgreSQL cluster
# of its own (tests/parallel_services.py).
XDIST_WORKER = xdist_worker()
WORKER_SERVICES = None
if XDIST_WORKER:
    WORKER_SERVICES, worker_urls = worker_services(
        XDIST_WORKER,
        database_url=os.environ.get(
            "CONV_TASKS_TEST_DATABASE_URL",
            "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_test",
        ),
        broker_url=os.environ.get("CONV_TASKS_TEST_BROKER_URL", "redis://127.0.0.1:6379/13"),
    )
    os.environ.update(worker_urls)

BROKER_URL, BROKER_VHOST = _run_vhost(
    os.environ.get("CONV_TASKS_TEST_BROKER_URL", "redis://127.0.0.1:6379/13")
)

TEST_ENV = {
    "CONV_TASKS_DATABASE_URL": os.environ.get(
        "CONV_TASKS_TEST_DATABASE_URL",
        "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_test",
    ),
    # CONV_TASKS_TEST_BROKER_URL chooses the broker (amqp://... for RabbitMQ); the other two let
    # test runs side by side keep to their own Redis databases.
    "CONV_TASKS_BROKER_URL": BROKER_URL,
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
    # Beat purges every 2 s, with the default retention (30 days): only rows a test dated back
    # that far are purged (tests/integration/test_integration_purge.py).
    "CONV_TASKS_PURGE_INTERVAL": "2",
    "CONV_TASKS_POLL_INTERVAL": "0.2",
    "CONV_TASKS_VISIBILITY_TIMEOUT": "15",
    # Secrets at rest are sealed in every test, with a key of this run's own.
    "CONV_TASKS_ENCRYPTION_KEYS": Fernet.generate_key().decode("ascii"),
}
os.environ.update(TEST_ENV)

from conv_tasks.broker.options import BrokerKind, broker_kind  # noqa: E402 - after the env

# The conformance kit's fixtures (tests/testing), also where conv_tasks was installed before
# its pytest11 entry point existed; the entry point of the same name makes this a no-op.
pytest_plugins = ["conv_tasks.testing.plugin"]

TEST_BROKER = broker_kind(BROKER_URL)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "broker(kind, reason): the test measures something only a Redis or only a RabbitMQ "
        "broker has; it is skipped, with the reason, when the run's broker is the other",
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    # After the session's fixtures are torn down: the Celery processes on it have stopped.
    if WORKER_SERVICES is not None:
        WORKER_SERVICES.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("broker")
        if marker is None:
            continue
        wanted = BrokerKind(marker.args[0])
        if wanted is not TEST_BROKER:
            reason = marker.kwargs.get("reason", "")
            item.add_marker(
                pytest.mark.skip(reason=f"{wanted} broker only ({reason}); this run: {TEST_BROKER}")
            )


def _services() -> None:
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)


def rabbitmqctl(*args: str) -> str:
    done = subprocess.run(
        ["rabbitmqctl", "-q", *args], check=True, capture_output=True, text=True, timeout=60
    )
    return done.stdout


@contextlib.contextmanager
def rabbitmq_vhost(url: str) -> Iterator[str]:
    """The virtual host `url` names, created (its user may do anything there), then deleted."""
    parts = urlsplit(url)
    vhost, user = unquote(parts.path[1:]), unquote(parts.username or "guest")
    rabbitmqctl("add_vhost", vhost)
    try:
        rabbitmqctl("set_permissions", "-p", vhost, user, ".*", ".*", ".*")
        yield url
    finally:
        rabbitmqctl("delete_vhost", vhost)


@pytest.fixture(scope="session")
def broker_url() -> Iterator[str]:
    """The run's broker, empty: a Redis database flushed, or a RabbitMQ vhost of its own."""
    _services()
    from conv_tasks.tasks.app import app

    if BROKER_VHOST is None:
        import redis

        redis.Redis.from_url(BROKER_URL).flushdb()
        yield BROKER_URL
        return
    with rabbitmq_vhost(BROKER_URL):
        try:
            app.control.purge()  # declares conv_tasks' durable queue as the workers will, empty
            yield BROKER_URL
        finally:
            app.pool.force_close_all()


@pytest.fixture
def private_rabbitmq_url(broker_url: str) -> Iterator[str]:
    """A RabbitMQ vhost for one test's own workers (an amqp run only), deleted after it."""
    if BROKER_VHOST is None:
        pytest.skip("needs a RabbitMQ broker (CONV_TASKS_TEST_BROKER_URL=amqp://...)")
    with rabbitmq_vhost(on_vhost(BROKER_URL, f"{BROKER_VHOST}.{uuid.uuid4().hex[:6]}")) as url:
        yield url


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
    database_url: str,
    redis_client: object,
    broker_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[CeleryProcesses]:
    """Two worker processes (two pool children each) and beat, for the whole session."""
    from conv_tasks.celery_processes import CeleryProcesses

    pool = CeleryProcesses(tmp_path_factory.mktemp("workers"), env=TEST_ENV, suffix=RUN_ID)
    pool.start_worker("w1")
    pool.start_worker("w2")
    pool.start_beat()
    try:
        pool.wait_ready()
        yield pool
    finally:
        pool.stop_all()
