"""`conv-tasks api serve` in a child process on a free port, for the tests that meet the edge
as a caller does (tests/api, tests/ui): started with the environment given, waited for on its
health check, stopped after."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_edge(env: dict[str, str], log: Path) -> Iterator[str]:
    """Yield the base URL of an edge started with `env` (its output in `log`)."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from conv_tasks.cli.main import main; main()",
                "api",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/healthcheck", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
