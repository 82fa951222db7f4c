"""PrivateRedis: a redis-server of our own on a free port, keeping nothing on disk, for a
broker no other worker listens on or a Redis a test kills. It stops exactly the process it
started; a missing redis-server fails with a sentence saying how to get it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis

from conv_tasks.testing.services import free_port


class PrivateRedis:
    """A redis-server of our own, keeping nothing on disk, on a free port of `host` (asking
    for `password`, when one is given)."""

    def __init__(
        self, password: str = "", *, host: str = "127.0.0.1", args: Sequence[str] = ()
    ) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError(
                "redis-server is not installed: install it (Debian: `apt-get install "
                "redis-server`)."
            )
        self.host = host
        self.port = free_port(host)
        self.password = password
        # More redis-server options (`--replicaof HOST PORT`).
        self.args = tuple(args)
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        """The redis:// URL of database `db`, password included."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}{self.host}:{self.port}/{db}"

    def start(self) -> None:
        """Start the server; returns once it answers a ping."""
        with open(self.root / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(
                [
                    "redis-server", "--port", str(self.port), "--bind", self.host,
                    "--save", "", "--appendonly", "no", "--dir", str(self.root),
                    *(["--requirepass", self.password] if self.password else []),
                    # Listening on one address only (a link a test made): protected mode would
                    # refuse the other end of that link, for want of a password.
                    *(["--protected-mode", "no"] if self.host != "127.0.0.1" else []),
                    *self.args,
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
        """A redis-py client of database `db`."""
        return redis.Redis(host=self.host, port=self.port, db=db, password=self.password or None)

    def connection(self, db: int = 0, **fields: Any) -> dict[str, Any]:
        """A `celery` connection whose broker is database `db` and results `db + 1`, for
        connections_file; `fields` adds others."""
        found = {"kind": "celery", "broker_url": self.url(db), "result_backend": self.url(db + 1)}
        return {**found, **fields}

    def kill(self) -> None:
        """SIGKILL the server, as a host that dies: it writes nothing more, says goodbye to
        no one. Its directory stays (stop removes it)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove its files."""
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None
        shutil.rmtree(self.root, ignore_errors=True)
