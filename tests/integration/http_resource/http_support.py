"""What ConvTasks::HTTP::Resource's tests against a real REST server (json-server) share.

A cluster of its own: a private Redis (broker, SyncPoints, results), a database beside the
session's (`<name>_http`), json-server on a free port, and conv_tasks workers whose
CONV_TASKS_CONNECTIONS names http connections to it. The bearer token is a real secret, in
a file: json-server answers 401 to a request without it (so it is sent), and the tests
look for it everywhere conv_tasks shows or logs anything (so it is never shown).

The cluster brings its own broker, so a RabbitMQ run has nothing to add: these tests say
they are for the Redis run.
"""

from __future__ import annotations

import secrets
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from celery import Celery

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "chaos"))

from private_services import PrivateRedis, celery_app, fresh_database, wait_for_workers
from rest_server import JsonServer

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client

# The collections json-server serves. The adoption tests make objects of their own outside
# conv_tasks, and keep them in theirs: the other tests count what is in theirs.
COLLECTIONS = (
    "items",
    "things",
    "echoes",
    "limited",
    "unlimited",
    "paced",
    "killed",
    "adopted",
    "adopted_more",
)
# The most actions of `rest-limited` in flight at once.
IN_FLIGHT = 2
PER_SECOND = 5

BROKER_NOTE = "a private Redis broker of its own: the broker is not these tests' subject"


@dataclass
class HttpCluster:
    server: JsonServer
    processes: CeleryProcesses
    app: Celery
    database_url: str
    token: str

    def client(self) -> Client:
        return Client(self.app, tenant=f"http-{uuid.uuid4().hex[:8]}", timeout=30)

    def logs(self) -> str:
        """Every conv_tasks process's log so far (json-server's is the server's own)."""
        texts = [p.read_text(errors="replace") for p in self.processes.log_dir.glob("*.log")]
        return "\n".join(texts)


def connections_yaml(base_url: str, token_file: Path) -> str:
    """The connections file of the cluster's workers."""

    def http(**extra: Any) -> dict[str, Any]:
        return {
            "kind": "http",
            "base_url": base_url,
            "bearer_token_file": str(token_file),
            **extra,
        }

    return yaml.safe_dump(
        {
            "default": {
                "rest": http(),
                "rest-limited": http(rate_limit={"in_flight": IN_FLIGHT}),
                "rest-paced": http(rate_limit={"per_second": PER_SECOND}),
            }
        }
    )


@contextmanager
def http_cluster(
    database_url: str,
    root: Path,
    *,
    name: str,
    workers: dict[str, int],
    beat: bool = False,
    lock_ttl: float | None = None,
) -> Iterator[HttpCluster]:
    """json-server and conv_tasks workers (name: concurrency) that reach it through
    connections, on a Redis and a database of their own."""
    token = f"tok-{secrets.token_hex(16)}"
    server = JsonServer(COLLECTIONS, token=token)
    redis_server = PrivateRedis()
    processes: CeleryProcesses | None = None
    app: Celery | None = None
    try:
        server.start()
        redis_server.start()
        root.mkdir(parents=True, exist_ok=True)
        token_file = root / "rest-token"
        token_file.write_text(token + "\n")
        connections = root / "connections.yaml"
        connections.write_text(connections_yaml(server.base_url, token_file))
        env = {
            "CONV_TASKS_DATABASE_URL": fresh_database(database_url, name),
            "CONV_TASKS_BROKER_URL": redis_server.url(0),
            "CONV_TASKS_REDIS_URL": redis_server.url(1),
            "CONV_TASKS_RESULT_BACKEND": redis_server.url(2),
            "CONV_TASKS_REDIS_PREFIX": f"{name}-{uuid.uuid4().hex[:6]}",
            "CONV_TASKS_CONNECTIONS": str(connections),
        }
        if lock_ttl is not None:
            env["CONV_TASKS_LOCK_TTL"] = str(lock_ttl)
        processes = CeleryProcesses(root / "logs", env=env, suffix=uuid.uuid4().hex[:6])
        for worker, concurrency in workers.items():
            processes.start_worker(worker, concurrency=concurrency)
        if beat:
            processes.start_beat()
        app = celery_app(env)
        wait_for_workers(app, {processes.hostname(w) for w in workers})
        yield HttpCluster(server, processes, app, env["CONV_TASKS_DATABASE_URL"], token)
    finally:
        if processes is not None:
            processes.stop_all(timeout=10)
        if app is not None:
            app.pool.force_close_all()
        redis_server.stop()
        server.stop()


def stack_of(resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    template: dict[str, Any] = {"heat_template_version": "2018-08-31", "resources": resources}
    if outputs:
        template["outputs"] = outputs
    return template


def http_resource(url: str, body: dict[str, Any], **properties: Any) -> dict[str, Any]:
    """A ConvTasks::HTTP::Resource through the `rest` connection unless told otherwise."""
    props = {"connection": "rest", "url": url, "body": body, **properties}
    return {"type": "ConvTasks::HTTP::Resource", "properties": props}
