"""Fixtures of the engine's unit tests: an engine environment on the stand-ins
(tests/engine/standins), and its parts, typed for the tests that reach into them."""

from __future__ import annotations

import pytest
from standins import (
    RecordingDispatcher,
    StandinClock,
    StandinDatabase,
    StandinSandbox,
    StandinSyncPoints,
    standin_env,
    stepped_registry,
)

from conv_tasks.engine import EngineEnv, TenantStacks

TENANT = "tenant-a"


@pytest.fixture
def env() -> EngineEnv:
    """A fresh environment on the stand-ins, whose registry also has Test::Stepped."""
    return standin_env(registry=stepped_registry())


@pytest.fixture
def stacks(env: EngineEnv) -> TenantStacks:
    """The stack operations of the tenant the tests act as."""
    return TenantStacks(env, TENANT)


@pytest.fixture
def db(env: EngineEnv) -> StandinDatabase:
    assert isinstance(env.db, StandinDatabase)
    return env.db


@pytest.fixture
def clock(db: StandinDatabase) -> StandinClock:
    return db.clock


@pytest.fixture
def dispatcher(env: EngineEnv) -> RecordingDispatcher:
    assert isinstance(env.dispatcher, RecordingDispatcher)
    return env.dispatcher


@pytest.fixture
def syncpoints(env: EngineEnv) -> StandinSyncPoints:
    assert isinstance(env.syncpoints, StandinSyncPoints)
    return env.syncpoints


@pytest.fixture
def sandbox(env: EngineEnv) -> StandinSandbox:
    assert isinstance(env.sandbox, StandinSandbox)
    return env.sandbox
