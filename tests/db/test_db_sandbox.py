"""The sandbox cloud against the real PostgreSQL, and its stand-in held to the same answers:
one object per token, found again by that token until it is deleted."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from conv_tasks.db import PostgresSandbox
from conv_tasks.resources import Sandbox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from standins import StandinClock, StandinDatabase, StandinSandbox


@pytest.fixture(params=["postgresql", "standin"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    if request.param == "standin":
        return StandinSandbox(StandinDatabase(StandinClock()).work)
    return PostgresSandbox(request.getfixturevalue("database_url"))


def test_a_token_finds_the_object_it_made_until_it_is_deleted(sandbox: Sandbox) -> None:
    token = f"{uuid.uuid4()}:1:CREATE"
    assert sandbox.find(token) is None  # nothing made yet
    made = sandbox.create(token, "test", {"value": "v"})
    assert sandbox.create(token, "test", {"value": "v"}) == made  # the same token: one object
    assert sandbox.find(token) == made
    assert sandbox.find(f"{uuid.uuid4()}:1:CREATE") is None  # another token made nothing
    assert sandbox.delete(made)
    assert sandbox.find(token) is None
