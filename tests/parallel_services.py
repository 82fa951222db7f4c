"""What one pytest-xdist worker of a parallel run keeps to itself (`make test` runs `-n 2`).

Each xdist worker process (gw0, gw1, ...) runs its share of the suite with session fixtures
of its own (tests/conftest.py): its own Celery workers and beat. Those must never take
another xdist worker's tasks, watch its stacks or see its keys, so in a worker
- Redis is a redis-server of the worker's own (PrivateRedis, on a free port, started when
  tests/conftest.py is imported and stopped when the session ends): SyncPoints in database 1,
  results in 2 and, when the run's broker is Redis, the broker in 0. Flushing the broker at
  the start, counting its keys, restarting a worker on it: each touches that worker's only;
- PostgreSQL is a cluster of the worker's own (PrivatePostgres: initdb on a free port, trust
  on 127.0.0.1, no fsync), with a database named after the configured one and the worker
  (`conv_tasks_test_gw0`); the databases tests make beside the session's
  (`fresh_database(database_url, "fuzz")`) are made there too. Two workers' Celery
  processes, edges and clusters of their own need more connections than one shared server
  allows (max_connections 100 was seen exhausted), and a parallel run then leaves the shared
  server to whoever else uses it;
- a RabbitMQ broker (amqp://) gets a virtual host per process, so per worker, as it did per
  run (tests/conftest.py); so does the Redis key prefix, of the same per-process run id.

Outside xdist nothing here runs: the CONV_TASKS_TEST_* URLs are used as they are given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from conv_tasks.broker.options import BrokerKind, broker_kind
from conv_tasks.testing.private_postgres import PrivatePostgres
from conv_tasks.testing.private_redis import PrivateRedis


def xdist_worker() -> str:
    """The pytest-xdist worker this process is ("gw0", "gw1", ...), "" outside xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "")


def worker_database_url(url: str, worker: str) -> str:
    """The same database URL naming the worker's own database: `<name>_<worker>`."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"{parts.path}_{worker}"))


@dataclass
class WorkerServices:
    """The servers one xdist worker started for itself."""

    redis: PrivateRedis
    postgres: PrivatePostgres

    def stop(self) -> None:
        self.redis.stop()
        self.postgres.destroy()


def worker_services(
    worker: str, *, database_url: str, broker_url: str
) -> tuple[WorkerServices, dict[str, str]]:
    """A started redis-server and PostgreSQL cluster of the worker's own, and the
    CONV_TASKS_TEST_* URLs that replace the configured ones in this worker (the broker only
    when it is Redis)."""
    database = urlsplit(worker_database_url(database_url, worker)).path.lstrip("/")
    postgres = PrivatePostgres(database)
    postgres.init()
    postgres.start()
    server = PrivateRedis()
    server.start()
    urls = {
        "CONV_TASKS_TEST_DATABASE_URL": postgres.url,
        "CONV_TASKS_TEST_REDIS_URL": server.url(1),
        "CONV_TASKS_TEST_RESULT_BACKEND": server.url(2),
    }
    if broker_kind(broker_url) is BrokerKind.REDIS:
        urls["CONV_TASKS_TEST_BROKER_URL"] = server.url(0)
    return WorkerServices(server, postgres), urls
