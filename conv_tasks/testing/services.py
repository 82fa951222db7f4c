"""The services a conformance run stands on: where they are, a database of its own, and
Celery apps to reach its workers.

`TestServices.from_env` reads where the cluster's PostgreSQL, Redis and broker are (the
CONV_TASKS_TEST_* variables, defaulting to the local servers): the one place the kit reads
the environment. `fresh_database` makes a migrated database of a run's own (conv_tasks.db
creates it); `celery_app` and `wait_for_workers` reach the run's workers. The private
servers a test starts for itself are in private_postgres.py, private_redis.py and
private_rabbitmq.py.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import redis
from celery import Celery

from conv_tasks.broker import connection_conf
from conv_tasks.db import recreate_database, upgrade
from conv_tasks.settings import Settings

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_test"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/13"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
DEFAULT_RESULT_BACKEND = "redis://127.0.0.1:6379/12"


@dataclass(frozen=True)
class TestServices:
    """Where a conformance cluster keeps its state: a PostgreSQL server (the cluster makes a
    database of its own there, named after `database_url`'s), a Redis, a broker and a result
    backend. The cluster's keys carry a prefix of their own."""

    __test__ = False  # not a pytest test class, whatever its name

    database_url: str
    broker_url: str
    redis_url: str
    result_backend: str
    # Where PostgreSQL's server programs (initdb, pg_ctl) are, for PrivatePostgres.
    pg_bin: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TestServices:
        """From CONV_TASKS_TEST_DATABASE_URL, CONV_TASKS_TEST_BROKER_URL,
        CONV_TASKS_TEST_REDIS_URL, CONV_TASKS_TEST_RESULT_BACKEND and CONV_TASKS_TEST_PG_BIN
        in `env` (this process's environment by default), the local servers where unset."""
        env = os.environ if env is None else env
        return cls(
            database_url=env.get("CONV_TASKS_TEST_DATABASE_URL") or DEFAULT_DATABASE_URL,
            broker_url=env.get("CONV_TASKS_TEST_BROKER_URL") or DEFAULT_BROKER_URL,
            redis_url=env.get("CONV_TASKS_TEST_REDIS_URL") or DEFAULT_REDIS_URL,
            result_backend=env.get("CONV_TASKS_TEST_RESULT_BACKEND") or DEFAULT_RESULT_BACKEND,
            pg_bin=env.get("CONV_TASKS_TEST_PG_BIN") or "",
        )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on at `host` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def fresh_database(server_url: str, suffix: str) -> str:
    """A migrated database of its own, named after `server_url`'s with `_SUFFIX` appended: no
    other test's beat (its watchdog, its purge) watches the stacks made there."""
    url = recreate_database(server_url, suffix=suffix)
    upgrade(url)
    return url


def celery_app(env: Mapping[str, str], name: str = "conv_tasks_client") -> Celery:
    """A Celery app of the test process that talks to the broker and results in `env`."""
    app = Celery(name)
    app.config_from_object("celeryconfig")
    # The broker, results and queues of `env`'s workers, whose queues may be of another type
    # than this process's.
    app.conf.update(connection_conf(Settings.from_env(env)))
    return app


def wait_for_workers(app: Celery, hostnames: set[str], timeout: float = 60.0) -> None:
    """Wait until every named worker answers a ping on `app`'s broker. Each ping goes on a
    connection of its own: a pooled one may be one to a broker that restarted or failed over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with app.connection_for_write() as conn:
                replies: list[dict[str, Any]] = app.control.ping(timeout=1.0, connection=conn) or []
        except (redis.exceptions.ConnectionError, OSError):
            time.sleep(0.3)
            continue
        up = {next(iter(reply)).split("@")[0] for reply in replies}
        if hostnames <= up:
            return
        time.sleep(0.3)
    raise RuntimeError(f"workers {sorted(hostnames)} did not answer within {timeout:.0f}s")
