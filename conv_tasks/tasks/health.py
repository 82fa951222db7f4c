"""Health and measurement tasks: ping, a bare task relay (the benchmark baseline), stats."""

from __future__ import annotations

import resource
import socket
from typing import Any

from celery.worker.control import inspect_command
from sqlalchemy import text

from conv_tasks.db.session import session_scope, statement_count
from conv_tasks.redis_client import get_redis
from conv_tasks.tasks.app import app


@app.task(name="conv_tasks.health.ping")
def ping(echo: str = "") -> dict[str, Any]:
    with session_scope() as session:
        database = session.execute(text("SELECT 1")).scalar() == 1
    redis_ok = bool(get_redis().ping())
    return {
        "pong": True,
        "echo": echo,
        "host": socket.gethostname(),
        "database": database,
        "redis": redis_ok,
    }


@app.task(name="conv_tasks.health.relay")
def relay(remaining: int, done_key: str) -> None:
    """Hand a token on `remaining` more times, then mark `done_key`: a bare Celery task chain."""
    if remaining > 0:
        app.send_task(
            "conv_tasks.health.relay", kwargs={"remaining": remaining - 1, "done_key": done_key}
        )
    else:
        get_redis().set(done_key, "1", ex=3600)


@inspect_command()
def conv_stats(state: Any) -> dict[str, Any]:
    """`celery inspect conv_stats`: SQL statements sent and peak memory of this worker process."""
    return {
        "sql_statements": statement_count(),
        "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
