"""Fixtures for the graph renderer's integration test: a client of a fresh tenant, served by
the session's real workers (tests/conftest.py)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from conv_tasks.client import Client


@pytest.fixture
def client(workers: Any) -> Client:
    return Client(tenant=f"tenant-{uuid.uuid4().hex[:8]}", timeout=30)
