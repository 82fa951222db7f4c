"""What one engine benchmark run measures, and where its services are."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.services import PrivateRedis

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_bench"
# Databases of the private redis-server.
BROKER_DB, SYNCPOINT_DB, RESULTS_DB = 0, 1, 2
# Task-event settings of the counting passes: CONV_TASKS_TASK_EVENTS, CONV_TASKS_TASK_SENT_EVENTS.
EVENT_MODES = {"off": ("0", "0"), "on": ("1", "0"), "sent": ("1", "1")}


@dataclass(frozen=True)
class Config:
    sizes: tuple[int, ...]
    shapes: tuple[str, ...]
    workers: int
    pool: str
    concurrency: int
    hops: int
    task_events: str  # the timing pass's mode, a key of EVENT_MODES
    count_sizes: tuple[int, ...]
    count_modes: tuple[str, ...]
    count_hops: int
    timeout: float
    settle: float
    database_url: str


@dataclass(frozen=True)
class Stage:
    """The benchmark's own services and where worker logs go."""

    redis: PrivateRedis
    database_url: str
    log_dir: Path

    def env(
        self,
        events: str,
        *,
        database_url: str | None = None,
        broker_port: int | None = None,
        syncpoint_port: int | None = None,
        results_port: int | None = None,
    ) -> dict[str, str]:
        """conv_tasks settings for a process; ports of counting proxies replace Redis's own."""
        task_events, sent_events = EVENT_MODES[events]
        return {
            "CONV_TASKS_DATABASE_URL": database_url or self.database_url,
            "CONV_TASKS_BROKER_URL": self.redis.url(BROKER_DB, broker_port),
            "CONV_TASKS_REDIS_URL": self.redis.url(SYNCPOINT_DB, syncpoint_port),
            "CONV_TASKS_RESULT_BACKEND": self.redis.url(RESULTS_DB, results_port),
            "CONV_TASKS_REDIS_PREFIX": "bench",
            "CONV_TASKS_TASK_EVENTS": task_events,
            "CONV_TASKS_TASK_SENT_EVENTS": sent_events,
        }
