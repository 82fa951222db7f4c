"""Health and measurement: a ping task, and a worker's statement count and memory."""

from __future__ import annotations

import resource
import socket
from typing import Any

from celery.worker.control import inspect_command

from conv_tasks.db.session import session_scope, statement_count
from conv_tasks.db.stacks import database_answers
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import engine_env


@app.task(name="conv_tasks.health.ping")
def ping(echo: str = "") -> dict[str, Any]:
    with session_scope() as session:
        database = database_answers(session)
    redis_ok = engine_env().syncpoints.ping()
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
