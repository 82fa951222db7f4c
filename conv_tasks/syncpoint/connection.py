"""The Redis client for SyncPoints and heartbeats: one per URL per process."""

from __future__ import annotations

import os

import redis

from conv_tasks.settings import get_settings

_clients: dict[tuple[str, int], redis.Redis] = {}


def get_redis(url: str | None = None) -> redis.Redis:
    url = url or get_settings().redis_url
    key = (url, os.getpid())
    client = _clients.get(key)
    if client is None:
        client = redis.Redis.from_url(url, health_check_interval=30)
        _clients[key] = client
    return client
