"""Fixtures for the SyncPoint tests: the real local Redis, and a key prefix of each test's own.

Redis is started if it is down. Every test gets a random prefix, and every
key under it is deleted afterwards, so tests never see each other's keys.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis

from conv_tasks.syncpoint import SyncPointStore

REDIS_URL = os.environ.get("CONV_TASKS_REDIS_URL", "redis://127.0.0.1:6379/14")
START_REDIS = [
    "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379",
    "--save", "", "--appendonly", "no", "--dir", "/var/lib/redis",
    "--logfile", "/var/log/redis/ci.log",
]  # fmt: skip


def _ping(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


@pytest.fixture(scope="session")
def redis_url() -> str:
    client = redis.Redis.from_url(REDIS_URL)
    if not _ping(client):
        os.makedirs("/var/lib/redis", exist_ok=True)
        os.makedirs("/var/log/redis", exist_ok=True)
        subprocess.run(START_REDIS, check=True)
        deadline = time.monotonic() + 30
        while not _ping(client):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Redis at {REDIS_URL} did not come up")
            time.sleep(0.2)
    client.close()
    return REDIS_URL


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def prefix(redis_client: redis.Redis) -> Iterator[str]:
    """A key prefix no other test uses; everything under it is deleted afterwards."""
    value = f"sptest-{uuid.uuid4().hex}"
    yield value
    keys = list(redis_client.scan_iter(match=f"{value}:*", count=1000))
    for start in range(0, len(keys), 1000):
        redis_client.unlink(*keys[start : start + 1000])


@pytest.fixture
def store(redis_client: redis.Redis, prefix: str) -> SyncPointStore:
    return SyncPointStore(redis_client, prefix=prefix, ttl=3600)


@pytest.fixture
def snapshot(redis_client: redis.Redis, prefix: str) -> Callable[[], dict[str, object]]:
    """A function giving every key under the test's prefix with its content (TTL aside)."""

    def take() -> dict[str, object]:
        found: dict[str, object] = {}
        for raw in redis_client.scan_iter(match=f"{prefix}:*", count=1000):
            key = raw.decode()
            kind = redis_client.type(key)
            kind = kind.decode() if isinstance(kind, bytes) else kind
            found[key] = redis_client.hgetall(key) if kind == "hash" else redis_client.get(key)
        return found

    return take
