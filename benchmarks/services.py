"""What the engine benchmark runs against, all of it its own.

A private redis-server on a free port (broker, SyncPoints and results in
three of its databases), a dedicated PostgreSQL database on the shared
server, and `celery worker` processes started and stopped here. Nothing
shared is flushed or restarted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psycopg
import redis
from sqlalchemy.engine import URL, make_url

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A redis-server of the benchmark's own: no persistence, stopped at the end."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        for _attempt in range(3):  # the free port may be taken before redis binds it
            self.port = free_port()
            log = open(self.workdir / "redis.log", "ab")  # noqa: SIM115 (lives with the process)
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--daemonize", "no",
                 "--dir", str(self.workdir)],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
            log.close()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                with contextlib.suppress(redis.ConnectionError):
                    if self.client(0).ping():
                        return
                time.sleep(0.05)
            self.stop()
        raise RuntimeError(f"redis-server did not start; see {self.workdir / 'redis.log'}")

    def url(self, db: int, port: int | None = None) -> str:
        return f"redis://127.0.0.1:{port or self.port}/{db}"

    def client(self, db: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, db=db)

    def command_calls(self, command: str) -> int:
        """How many times `command` has run on this server (INFO commandstats)."""
        stats: Mapping[str, Any] = self.client(0).info("commandstats")
        return int(stats.get(f"cmdstat_{command.lower()}", {}).get("calls", 0))

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None


def pg_connect(url: str | URL, database: str | None = None) -> Any:
    """A plain psycopg connection in autocommit mode, outside SQLAlchemy and conv_tasks."""
    parsed = make_url(url) if isinstance(url, str) else url
    return psycopg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        password=parsed.password,
        dbname=database or parsed.database,
        autocommit=True,
    )


def recreate_database(url: str) -> None:
    """Drop and create the benchmark database, then migrate it with conv_tasks' migrations."""
    from conv_tasks.db.migrate import upgrade

    name = make_url(url).database
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"unexpected benchmark database name {name!r}")
    conn = pg_connect(url, "postgres")
    try:
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            cur.execute(f'CREATE DATABASE "{name}"')
    finally:
        conn.close()
    upgrade(url)


def transactions_of(admin: Any, database: str) -> int:
    """xact_commit + xact_rollback of `database` as pg_stat_database shows it now."""
    with admin.cursor() as cur:
        cur.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
            (database,),
        )
        row = cur.fetchone()
    return int(row[0]) if row else 0


def proxied_database_url(url: str, port: int) -> str:
    """`url` through a local proxy port, without TLS so that the proxy can read it."""
    parsed = make_url(url)
    query = {**parsed.query, "sslmode": "disable", "gssencmode": "disable"}
    return parsed.set(host="127.0.0.1", port=port, query=query).render_as_string(
        hide_password=False
    )


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Workers:
    """`celery worker` processes of one app, started and stopped by the benchmark."""

    def __init__(self, app: str, env: Mapping[str, str], log_dir: Path, label: str) -> None:
        self.app = app
        self.env = {**os.environ, **env}
        self.log_dir = log_dir
        self.label = label
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, count: int, *, pool: str, concurrency: int, queues: str | None = None) -> None:
        """`queues`: consume only these (celery's -Q), not every queue the app declares."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        only = ["-Q", queues] if queues else []
        for i in range(count):
            with open(self.log_dir / f"{self.label}{i}.log", "ab") as log:
                self.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "celery", "-A", self.app, "worker",
                         "--loglevel", "WARNING", "--pool", pool,
                         "--concurrency", str(concurrency),
                         "--hostname", f"{self.label}{i}@%h",
                         "--without-gossip", "--without-mingle", *only],
                        env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )  # fmt: skip

    def wait_ready(self, control_app: Any, timeout: float = 60.0) -> None:
        """Until every worker answers a ping over the broker."""
        wanted = {f"{self.label}{i}" for i in range(len(self.procs))}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.procs):
                break
            replies = control_app.control.ping(timeout=0.5) or []
            if wanted <= {next(iter(reply)).split("@")[0] for reply in replies}:
                return
        raise RuntimeError(f"{self.label} workers did not start; logs in {self.log_dir}")

    def rss_mb(self) -> list[float]:
        """Resident memory of each worker process and of its pool children, in MB."""
        pids = [p.pid for p in self.procs]
        pids += [child for pid in pids for child in _children(pid)]
        return [round(rss_kb(pid) / 1024, 1) for pid in pids]

    def stop(self, timeout: float = 30.0) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        self.procs.clear()


class StackWatcher:
    """Sees a stack's operation finish by reading its row directly (no worker involved).

    `Client.wait` asks a worker (`conv_tasks.stack.show`) on every poll, which
    would add worker time to the timings and round trips to the counts.
    """

    def __init__(self, url: str) -> None:
        self.conn = pg_connect(url)
        self.queries = 0

    def wait(self, stack_id: str, action: str, timeout: float) -> tuple[str, float]:
        """Poll until the stack's `action` is COMPLETE or FAILED; (status, perf_counter then)."""
        start = time.perf_counter()
        while True:
            with self.conn.cursor() as cur:
                cur.execute("SELECT action, status FROM stack WHERE id = %s", (stack_id,))
                row = cur.fetchone()
            self.queries += 1
            now = time.perf_counter()
            if row and row[0] == action and row[1] in ("COMPLETE", "FAILED"):
                return f"{row[0]}_{row[1]}", now
            if now - start > timeout:
                raise TimeoutError(f"stack {stack_id} still {row} after {timeout:.0f}s")
            # About 1% of the time waited so far: fine resolution, little load.
            time.sleep(min(0.05, max(0.003, (now - start) / 100)))

    def close(self) -> None:
        self.conn.close()
