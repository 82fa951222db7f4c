"""The edges the web view's tests meet, and signing in to one (shared by tests/ui's modules;
named apart from conftest.py, which tests/ui/graph has too)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

UI_SECRET = "ui-secret-" + uuid.uuid4().hex + uuid.uuid4().hex


@dataclass(frozen=True)
class TokenEdge:
    url: str
    tenant: str
    token: str
    other_tenant: str
    other_token: str
    operator_token: str
    log: Path


@contextmanager
def signed_in(edge: TokenEdge, token: str) -> Iterator[httpx.Client]:
    """A client whose cookie jar holds the session `token` signs in to."""
    with httpx.Client(base_url=edge.url, timeout=60, follow_redirects=False) as client:
        answer = client.post("/ui/login", data={"token": token, "next": "/ui/"})
        assert answer.status_code == 303, answer.text
        yield client
