"""The Redis client for SyncPoints and heartbeats: one per URL per process.

It comes from conv_tasks.redis_client, the factory of every Redis client of conv_tasks, so a
sentinel:// CONV_TASKS_REDIS_URL gives a client that follows the master through failovers.
"""

from __future__ import annotations

from conv_tasks.redis_client import get_redis

__all__ = ["get_redis"]
