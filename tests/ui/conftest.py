"""The web view as a browser meets it: `conv-tasks api serve` in a child process in front of
the session's real workers, read with httpx (tests/ui/test_ui_http_*.py) and with Debian's
headless Chromium driven by Selenium (tests/ui/test_ui_browser.py).

Two edges: one with noauth (the tenant chosen in the URL or on the sign-in form) and one with
tokens (a tenant's token, another tenant's, an operator's `*`), a UI secret, a one-second
heartbeat on idle event streams and at most three streams at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from edge_process import serve_edge
from ui_edges import UI_SECRET, TokenEdge
from ui_stacks import Stacks

from conv_tasks.client import Client
from conv_tasks.edge import token_hash


@pytest.fixture(scope="session")
def noauth_edge(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("ui-noauth")
    yield from serve_edge({"CONV_TASKS_API_AUTH": "noauth"}, folder / "edge.log")


@pytest.fixture(scope="session")
def token_edge(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TokenEdge]:
    folder = tmp_path_factory.mktemp("ui-tokens")
    tenant, other = f"ui-{uuid.uuid4().hex[:8]}", f"ui-other-{uuid.uuid4().hex[:8]}"
    token, other_token, operator = (f"{kind}-{uuid.uuid4().hex}" for kind in "abc")
    tokens = folder / "tokens"
    tokens.write_text(
        f"{token_hash(token)} {tenant}\n"
        f"{token_hash(other_token)} {other} reader\n"
        f"{token_hash(operator)} * reader\n"
    )
    env = {
        "CONV_TASKS_API_AUTH": "tokens",
        "CONV_TASKS_API_TOKENS_FILE": str(tokens),
        "CONV_TASKS_UI_SECRET": UI_SECRET,
        "CONV_TASKS_UI_HEARTBEAT": "1s",
        "CONV_TASKS_UI_MAX_STREAMS": "3",
    }
    log = folder / "edge.log"
    for url in serve_edge(env, log):
        yield TokenEdge(url, tenant, token, other, other_token, operator, log)


@pytest.fixture
def tenant() -> str:
    return f"ui{uuid.uuid4().hex[:10]}"


@pytest.fixture
def stacks(workers: Any, tenant: str) -> Stacks:
    return Stacks(Client(tenant=tenant, timeout=60))


@pytest.fixture
def http(noauth_edge: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=noauth_edge, timeout=60, follow_redirects=False) as client:
        yield client


@pytest.fixture(scope="session")
def driver() -> Iterator[Any]:
    """Debian's headless Chromium through Selenium (tests/ui/browser.py)."""
    from browser import chromium

    with chromium() as found:
        yield found
