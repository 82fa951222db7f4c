"""What the ConvTasks::Celery::Task tests run against, all of it their own:

- `ServiceWorld`: another service (celery_task_service.py) on a private, password-protected
  redis-server (broker db 0, results db 1, records db 3), its workers started as real
  `celery -A celery_task_service worker` processes; the password is in a file (mode 0600),
  the server reads it from its config file, and it is on no command line.
- `Cluster`: conv_tasks workers of their own (a private Redis for broker, SyncPoints and
  results, a fresh database), whose CONV_TASKS_CONNECTIONS file names the service's broker
  as the celery connection `records`, its password read from the file; a second service
  worker on conv_tasks' own broker serves resources that name no connection.

Everything is stopped at the end, and nothing shared is flushed or restarted.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import celery_task_service as svc
import redis
from celery import Celery
from private_services import PrivateRedis, celery_app, fresh_database, wait_for_workers
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client

HERE = Path(__file__).resolve().parent
TYPE = "ConvTasks::Celery::Task"
CONNECTION = "records"


class PasswordRedis(PrivateRedis):
    """A redis-server of our own that wants a password (requirepass, from its config file)."""

    def __init__(self) -> None:
        super().__init__()
        self.password = f"svc-{secrets.token_hex(12)}"
        self.secret_file = self.root / "records.secret"

    def url(self, db: int = 0, *, password: bool = True) -> str:
        auth = f":{self.password}@" if password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        self.secret_file.write_text(self.password + "\n")
        self.secret_file.chmod(0o600)
        config = self.root / "redis.conf"
        config.write_text(
            f'port {self.port}\nbind 127.0.0.1\nsave ""\nappendonly no\n'
            f"dir {self.root}\nrequirepass {self.password}\n"
        )
        config.chmod(0o600)
        with open(self.root / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(
                ["redis-server", str(config)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 20
        while True:
            try:
                self.client(0).ping()
                return
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    log = self.root / "redis.log"
                    raise RuntimeError(f"redis-server did not start: see {log}") from None
                time.sleep(0.05)

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(port=self.port, db=db, password=self.password, decode_responses=True)


class ServiceProcesses(CeleryProcesses):
    """`celery worker` processes of the other service's app, not conv_tasks'."""

    def command(self, args: list[str]) -> list[str]:
        return [sys.executable, "-m", "celery", "-A", "celery_task_service", *args]


@dataclass
class ServiceWorld:
    """The other service: its Redis, its workers, and what its records say."""

    redis: PasswordRedis
    workers: ServiceProcesses
    store: redis.Redis

    @classmethod
    def start(cls, root: Path) -> ServiceWorld:
        server = PasswordRedis()
        server.start()
        env = service_env(server.url(0), server.url(1), server.url(3))
        workers = ServiceProcesses(root / "service-logs", env=env, suffix=uuid.uuid4().hex[:6])
        world = cls(server, workers, server.client(3))
        workers.start_worker("svc", concurrency=2)
        wait_for_workers(world.app(), {workers.hostname("svc")})
        return world

    def app(self) -> Celery:
        """A client of the service's broker and results (the test's own view of them)."""
        app = Celery("celery_task_service_client", set_as_current=False)
        app.conf.update(broker_url=self.redis.url(0), result_backend=self.redis.url(1))
        return app

    def records(self) -> dict[str, dict[str, Any]]:
        return {k: json.loads(v) for k, v in self.store.hgetall(svc.RECORDS).items()}

    def records_by(self, key_prefix: str) -> list[dict[str, Any]]:
        """The records made by creates whose idempotency key starts with `key_prefix` (a
        stack id: the keys are the stack's action tokens)."""
        return [r for r in self.records().values() if r["created_by"].startswith(key_prefix)]

    def calls(self, task: str | None = None, key_prefix: str = "") -> list[dict[str, Any]]:
        runs = [json.loads(item) for item in self.store.lrange(svc.CALLS, 0, -1)]
        return [
            r
            for r in runs
            if (task is None or r["task"] == task) and r["key"].startswith(key_prefix)
        ]

    def stop(self) -> None:
        self.workers.stop_all(timeout=10)
        self.redis.stop()


def service_env(broker: str, backend: str, store: str) -> dict[str, str]:
    """The environment of a service worker: its settings, and its module on the path."""
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    return {
        "SERVICE_BROKER_URL": broker,
        "SERVICE_RESULT_BACKEND": backend,
        "SERVICE_STORE_URL": store,
        "PYTHONPATH": path,
    }


def connections_yaml(service: ServiceWorld, root: Path) -> Path:
    """The conv_tasks connections file: the service's broker by reference to its password."""
    wrong = root / "wrong.secret"
    wrong.write_text("not-the-password\n")
    server = service.redis
    body = {
        "default": {
            CONNECTION: {
                "kind": "celery",
                "broker_url": server.url(0, password=False),
                "result_backend": server.url(1, password=False),
                "password_file": str(server.secret_file),
            },
            "records-wrong-password": {
                "kind": "celery",
                "broker_url": server.url(0, password=False),
                "result_backend": server.url(1, password=False),
                "password_file": str(wrong),
            },
            "web": {"kind": "http", "base_url": "http://127.0.0.1:9"},
        }
    }
    path = root / "connections.yaml"
    path.write_text(json.dumps(body))  # JSON is YAML
    return path


@dataclass
class Cluster:
    """conv_tasks workers of their own, acting on the service through its connection."""

    root: Path
    database_url: str
    env: dict[str, str]
    redis: PrivateRedis
    processes: CeleryProcesses
    app: Celery
    service: ServiceWorld
    own_service: ServiceProcesses | None = None
    clients: list[Client] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        session_database_url: str,
        service: ServiceWorld,
        *,
        suffix: str,
        workers: int = 1,
        own_broker_service: bool = True,
        beat: bool = False,
        prepare_database: Callable[[str], None] | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> Cluster:
        root = Path(tempfile.mkdtemp(prefix=f"conv-tasks-celery-task-{suffix}-"))
        private = PrivateRedis()
        private.start()
        try:
            database = fresh_database(session_database_url, suffix)
            if prepare_database is not None:
                prepare_database(database)
        except BaseException:
            private.stop()  # a server nobody would stop again (a refused connection leaked one)
            raise
        env = {
            "CONV_TASKS_DATABASE_URL": database,
            "CONV_TASKS_BROKER_URL": private.url(0),
            "CONV_TASKS_REDIS_URL": private.url(1),
            "CONV_TASKS_RESULT_BACKEND": private.url(2),
            "CONV_TASKS_REDIS_PREFIX": f"celery-task-{uuid.uuid4().hex[:6]}",
            "CONV_TASKS_CONNECTIONS": str(connections_yaml(service, root)),
            **(extra_env or {}),
        }
        processes = CeleryProcesses(root / "logs", env=env, suffix=uuid.uuid4().hex[:6])
        cluster = cls(root, database, env, private, processes, celery_app(env), service)
        try:
            names = [f"w{n}" for n in range(1, workers + 1)]
            for name in names:
                processes.start_worker(name, concurrency=2)
            if beat:
                processes.start_beat()
            if own_broker_service:
                # The service also serves conv_tasks' own broker (resources naming no
                # connection), with conv_tasks' result backend; its records in the same store.
                own_env = service_env(private.url(0), private.url(2), service.redis.url(3))
                cluster.own_service = ServiceProcesses(
                    root / "own-service-logs", env=own_env, suffix=uuid.uuid4().hex[:6]
                )
                cluster.own_service.start_worker("svc-own", concurrency=1)
            wait_for_workers(cluster.app, {processes.hostname(n) for n in names})
            if cluster.own_service is not None:
                wait_for_workers(cluster.app, {cluster.own_service.hostname("svc-own")})
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def client(self, tenant: str | None = None) -> Client:
        client = Client(self.app, tenant=tenant or f"tenant-{uuid.uuid4().hex[:8]}", timeout=30)
        self.clients.append(client)
        return client

    def logs(self) -> str:
        return "\n".join(
            path.read_text(errors="replace") for path in sorted(self.root.rglob("*.log"))
        )

    def stop(self) -> None:
        self.processes.stop_all(timeout=10)
        if self.own_service is not None:
            self.own_service.stop_all(timeout=10)
        self.app.pool.force_close_all()
        self.redis.stop()
        drop_database(self.database_url)


def drop_database(url: str) -> None:
    target = make_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
    admin.dispose()


def template(resources: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": dict(resources), **extra}


def task_resource(**properties: Any) -> dict[str, Any]:
    return {"type": TYPE, "properties": properties}


def call(task: str, queue: str | None = svc.QUEUE, **kwargs: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"task": task, "kwargs": kwargs}
    if queue is not None:
        spec["queue"] = queue
    return spec


def wait_until(what: str, check: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:.0f}s")
        time.sleep(0.1)
