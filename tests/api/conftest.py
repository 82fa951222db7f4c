"""The edge as a caller meets it: `conv-tasks api serve` in a child process on a free port,
in front of the session's real workers, driven with httpx."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conv_tasks.api import token_hash

WRITER_TOKEN = "writer-" + uuid.uuid4().hex
READER_TOKEN = "reader-" + uuid.uuid4().hex
TOKEN_TENANT = f"tok-{uuid.uuid4().hex[:8]}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(env: dict[str, str], log: Path) -> Iterator[str]:
    port = _free_port()
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


@pytest.fixture(scope="session")
def edge_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("edge") / "edge.log"


@pytest.fixture(scope="session")
def edge_url(workers: Any, edge_log: Path) -> Iterator[str]:
    """The edge with noauth (the tenant is the URL's)."""
    yield from _serve({"CONV_TASKS_API_AUTH": "noauth"}, edge_log)


@dataclass(frozen=True)
class Tokens:
    tenant: str
    writer: str
    reader: str


@pytest.fixture(scope="session")
def tokens() -> Tokens:
    return Tokens(TOKEN_TENANT, WRITER_TOKEN, READER_TOKEN)


@pytest.fixture(scope="session")
def token_edge_url(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("edge-tokens")
    tokens = folder / "tokens"
    tokens.write_text(
        "# token hashes\n"
        f"{token_hash(WRITER_TOKEN)} {TOKEN_TENANT}\n"
        f"sha256:{token_hash(READER_TOKEN)} {TOKEN_TENANT} reader\n"
    )
    env = {"CONV_TASKS_API_AUTH": "tokens", "CONV_TASKS_API_TOKENS_FILE": str(tokens)}
    yield from _serve(env, folder / "edge.log")


@pytest.fixture
def tenant() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def http(edge_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=edge_url, timeout=60, follow_redirects=False) as client:
        yield client
