"""The edge as a caller meets it: `conv-tasks api serve` in a child process on a free port,
in front of the session's real workers, driven with httpx."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from edge_process import serve_edge

from conv_tasks.edge import token_hash

WRITER_TOKEN = "writer-" + uuid.uuid4().hex
READER_TOKEN = "reader-" + uuid.uuid4().hex
TOKEN_TENANT = f"tok-{uuid.uuid4().hex[:8]}"


def _serve(env: dict[str, str], log: Path) -> Iterator[str]:
    yield from serve_edge(env, log)


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
    env = {
        "CONV_TASKS_API_AUTH": "tokens",
        "CONV_TASKS_API_TOKENS_FILE": str(tokens),
        "CONV_TASKS_UI_SECRET": "a-test-secret-of-at-least-32-characters",
    }
    yield from _serve(env, folder / "edge.log")


@pytest.fixture
def tenant() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def http(edge_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=edge_url, timeout=60, follow_redirects=False) as client:
        yield client
