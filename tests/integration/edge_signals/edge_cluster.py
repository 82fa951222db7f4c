"""A conv_tasks of its own behind the HTTP edge, for what servers do with nothing but curl or
the agent: a private Redis (broker, SyncPoints, results), a database beside the session's,
workers that know the edge's public URL (CONV_TASKS_API_PUBLIC_URL), and the edge itself
(`conv-tasks api serve`, noauth on loopback) in a child process.

The session's workers give wait handles the broker's signal command; these give Heat's curl
command against this edge. The cluster brings its own broker, so a RabbitMQ run has nothing
to add.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from celery import Celery

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.testing import (
    PrivateRedis,
    celery_app,
    free_port,
    fresh_database,
    wait_for_workers,
)

CONV_TASKS = str(Path(sys.executable).with_name("conv-tasks"))
BROKER_NOTE = "a private Redis broker of its own: the broker is not these tests' subject"


@dataclass
class EdgeCluster:
    url: str  # the edge, as servers reach it
    env: dict[str, str]  # the workers' and the edge's settings
    processes: CeleryProcesses
    app: Celery
    edge_log: Path

    @property
    def database_url(self) -> str:
        return self.env["CONV_TASKS_DATABASE_URL"]

    def client(self, tenant: str | None = None) -> Client:
        return Client(self.app, tenant=tenant or f"edge-{uuid.uuid4().hex[:8]}", timeout=30)

    def logs(self) -> str:
        """What the workers and the edge logged so far."""
        paths = [*self.processes.log_dir.glob("*.log"), self.edge_log]
        return "\n".join(p.read_text(errors="replace") for p in paths if p.exists())


@contextmanager
def edge_cluster(database_url: str, root: Path, *, name: str) -> Iterator[EdgeCluster]:
    redis_server = PrivateRedis()
    processes: CeleryProcesses | None = None
    app: Celery | None = None
    edge: subprocess.Popen[bytes] | None = None
    try:
        redis_server.start()
        root.mkdir(parents=True, exist_ok=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        env = {
            "CONV_TASKS_DATABASE_URL": fresh_database(database_url, name),
            "CONV_TASKS_BROKER_URL": redis_server.url(0),
            "CONV_TASKS_REDIS_URL": redis_server.url(1),
            "CONV_TASKS_RESULT_BACKEND": redis_server.url(2),
            "CONV_TASKS_REDIS_PREFIX": f"{name}-{uuid.uuid4().hex[:6]}",
            "CONV_TASKS_API_PUBLIC_URL": url,
            "CONV_TASKS_POLL_INTERVAL": "0.2",
        }
        processes = CeleryProcesses(root / "logs", env=env, suffix=uuid.uuid4().hex[:6])
        processes.start_worker("w", concurrency=2)
        app = celery_app(env)
        wait_for_workers(app, {processes.hostname("w")})
        edge_log = root / "edge.log"
        with open(edge_log, "wb") as out:
            edge = subprocess.Popen(
                [CONV_TASKS, "api", "serve", "--host", "127.0.0.1", "--port", str(port)],
                env={**os.environ, **env, "CONV_TASKS_API_AUTH": "noauth"},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        _wait_answering(url, edge, edge_log)
        yield EdgeCluster(url, env, processes, app, edge_log)
    finally:
        if edge is not None:
            edge.terminate()
            try:
                edge.wait(timeout=15)
            except subprocess.TimeoutExpired:
                edge.kill()
        if processes is not None:
            processes.stop_all(timeout=10)
        if app is not None:
            app.pool.force_close_all()
        redis_server.stop()


def _wait_answering(
    url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 60
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the edge exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/v1/probe/stacks", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the edge did not answer within {timeout:.0f} s:\n{log.read_text()}")
