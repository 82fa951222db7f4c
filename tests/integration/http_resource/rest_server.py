"""json-server, the real REST server ConvTasks::HTTP::Resource's tests and benchmark run
against: a process of our own on a free port, with a fresh db file, stopped at the end.

json-server 0.17.4 (tools/json-server, installed by `make setup` with npm ci) keeps a
client-chosen id and refuses a second POST of it (a 500 "Insert failed, duplicate id"):
what the type needs to create exactly once. json-server 1.0's betas make up their own id
whatever the body says, and need Node.js 22. The middleware beside this file counts, fails
and delays requests on demand (json_server_middleware.js says how).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[3]
BIN = ROOT / "tools" / "json-server" / "node_modules" / ".bin" / "json-server"
MIDDLEWARE = Path(__file__).resolve().parent / "json_server_middleware.js"
MISSING = (
    f"json-server is not installed at {BIN}: run `make setup` (it runs "
    "`npm ci --prefix tools/json-server`; Node.js and npm come from Debian's nodejs and npm "
    "packages)."
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class JsonServer:
    """One json-server with the given collections, each empty at the start."""

    def __init__(self, collections: Iterable[str], *, token: str | None = None) -> None:
        self.collections = tuple(collections)
        self.token = token
        self.root = Path(tempfile.mkdtemp(prefix="conv-tasks-json-server-"))
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(headers=headers, timeout=10.0)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        if not BIN.exists():
            raise RuntimeError(MISSING)
        db = self.root / "db.json"
        db.write_text(json.dumps({name: [] for name in self.collections}))
        env = {**os.environ}
        if self.token:
            env["JSON_SERVER_TOKEN"] = self.token
        for _attempt in range(3):  # the free port may be taken before json-server binds it
            self.port = free_port()
            with open(self.root / "json-server.log", "ab") as log:
                self.proc = subprocess.Popen(
                    [str(BIN), "--host", "127.0.0.1", "--port", str(self.port),
                     "--middlewares", str(MIDDLEWARE), "--quiet", str(db)],
                    env=env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    self.http.get(f"{self.base_url}/__control", timeout=1.0)
                    return
                except httpx.TransportError:
                    time.sleep(0.1)
            self.stop(keep_files=True)
        raise RuntimeError(f"json-server did not start; see {self.root / 'json-server.log'}")

    def objects(self, collection: str) -> list[dict[str, Any]]:
        """What the server holds in `collection`, read straight from it."""
        answer = self.http.get(f"{self.base_url}/{collection}")
        answer.raise_for_status()
        return list(answer.json())

    def control(self, **rules: Any) -> None:
        """Set what the next requests meet (json_server_middleware.js)."""
        self.http.post(f"{self.base_url}/__control", json=rules).raise_for_status()

    def seen(self) -> dict[str, Any]:
        """What the middleware saw since the last reset."""
        answer = self.http.get(f"{self.base_url}/__control")
        answer.raise_for_status()
        return dict(answer.json())

    def reset(self) -> None:
        self.http.post(f"{self.base_url}/__control/reset").raise_for_status()

    def log(self) -> str:
        path = self.root / "json-server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, *, keep_files: bool = False) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None
        if not keep_files:
            self.http.close()
            shutil.rmtree(self.root, ignore_errors=True)
