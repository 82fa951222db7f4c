"""Private PostgreSQL clusters, Redis servers and Celery workers for chaos tests.

A chaos test that stops a service, or counts what a broker is asked to do,
must not touch the shared servers other test runs use: these start their own,
on free ports in a temporary directory, and stop exactly the processes they
started. PostgreSQL refuses to run as root, so when we are root its commands
run as the `postgres` user.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import redis
from celery import Celery
from sqlalchemy import create_engine, text

from conv_tasks.broker.options import broker_options
from conv_tasks.db.migrate import upgrade
from conv_tasks.db.session import driver_url
from conv_tasks.settings import Settings

PG_BIN = Path(os.environ.get("CONV_TASKS_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivatePostgres:
    """A throwaway PostgreSQL cluster (trust authentication, no fsync) on a free port."""

    def __init__(self, database: str = "conv_tasks") -> None:
        self.port = free_port()
        self.database = database
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self._as_postgres: list[str] = []
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._as_postgres = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{self.database}"

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self._as_postgres, *args], check=True, capture_output=True, cwd=self.root, timeout=60
        )

    def init(self) -> None:
        self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
            "--no-sync", "--no-instructions",
        )  # fmt: skip

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
            "-w", "-t", "30", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; `fast` ends every session at once, as a restart does."""
        self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self) -> None:
        import psycopg

        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{self.database}"')

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class PrivateRedis:
    """A redis-server of our own, keeping nothing on disk, on a free port (asking for
    `password`, when one is given)."""

    def __init__(self, password: str = "") -> None:
        self.port = free_port()
        self.password = password
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        with open(self.root / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(
                [
                    "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", str(self.root),
                    *(["--requirepass", self.password] if self.password else []),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        client = self.client()
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(port=self.port, db=db, password=self.password or None)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)


def fresh_database(session_url: str, suffix: str) -> str:
    """A migrated database of its own, named after the session's with `_SUFFIX` appended: no
    other test's beat (its watchdog, its purge) watches the stacks made there."""
    target = driver_url(session_url)
    target = target.set(database=f"{target.database}_{suffix}")
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()
    url = target.render_as_string(hide_password=False)
    upgrade(url)
    return url


def celery_app(env: Mapping[str, str]) -> Celery:
    """A Celery app of the test process that talks to the broker and results in `env`
    (whichever broker the rest of the test session uses)."""
    settings = Settings.from_env(env)
    broker = broker_options(settings.broker_url, visibility_timeout=settings.visibility_timeout)
    app = Celery("conv_tasks_chaos")
    app.config_from_object("celeryconfig")
    app.conf.update(
        broker_url=settings.broker_url,
        broker_transport_options=broker.transport_options,
        result_backend=settings.result_backend,
    )
    return app


def wait_for_workers(app: Celery, hostnames: set[str], timeout: float = 60.0) -> None:
    """Wait until every named worker answers a ping on `app`'s broker."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies: list[dict[str, Any]] = app.control.ping(timeout=1.0) or []
        up = {next(iter(reply)).split("@")[0] for reply in replies}
        if hostnames <= up:
            return
        time.sleep(0.3)
    raise RuntimeError(f"workers {sorted(hostnames)} did not answer within {timeout:.0f}s")


def log_text(log_dir: Path) -> dict[str, str]:
    """Every Celery process log in `log_dir`, by file name."""
    return {
        path.name: path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(log_dir.glob("*.log"))
    }


def layered_template(width: int, depth: int, wait: float) -> dict[str, Any]:
    """`depth` layers of `width` TestResources waiting `wait` s, each on the whole layer above."""
    resources: dict[str, Any] = {}
    for layer in range(depth):
        for i in range(width):
            body: dict[str, Any] = {
                "type": "OS::Heat::TestResource",
                "properties": {"value": f"{layer}-{i}", "wait_secs": wait},
            }
            if layer:
                body["depends_on"] = [f"r{layer - 1}_{j}" for j in range(width)]
            resources[f"r{layer}_{i}"] = body
    return {"heat_template_version": "2018-08-31", "resources": resources}
