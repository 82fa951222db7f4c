"""conv_tasks.health.ping: proves a worker is up and can reach PostgreSQL and Redis."""

from __future__ import annotations

import socket
from typing import Any

from sqlalchemy import text

from conv_tasks.db.session import session_scope
from conv_tasks.redis_client import get_redis
from conv_tasks.tasks.app import app


@app.task(name="conv_tasks.health.ping")
def ping(echo: str = "") -> dict[str, Any]:
    with session_scope() as session:
        database = session.execute(text("SELECT 1")).scalar() == 1
    redis_ok = bool(get_redis().ping())
    return {"pong": True, "echo": echo, "host": socket.gethostname(), "database": database,
            "redis": redis_ok}
