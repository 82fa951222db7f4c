"""Health and measurement: a ping task, and a worker's statement count and memory."""

from __future__ import annotations

import resource
import socket
from typing import Any

from celery.worker.control import inspect_command

from conv_tasks.db import statement_count
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import engine_env


@app.task(name="conv_tasks.health.ping")
def ping(echo: str = "") -> dict[str, Any]:
    env = engine_env()
    database = env.db.answers()
    redis_ok = env.syncpoints.ping()
    return {
        "pong": True,
        "echo": echo,
        "host": socket.gethostname(),
        "database": database,
        "redis": redis_ok,
    }


@inspect_command()
def conv_stats(state: Any) -> dict[str, Any]:
    """`celery inspect conv_stats`: SQL statements sent and peak memory of this worker process."""
    return {
        "sql_statements": statement_count(),
        "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
