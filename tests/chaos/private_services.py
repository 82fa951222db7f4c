"""Private PostgreSQL clusters, Redis servers and Celery workers for chaos tests.

A chaos test that stops a service, or counts what a broker is asked to do,
must not touch the shared servers other test runs use: these start their own,
on free ports in a temporary directory, and stop exactly the processes they
started. The servers themselves are the conformance kit's (conv_tasks.testing),
which type packages use too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conv_tasks.testing import (
    PrivatePostgres,
    PrivateRedis,
    TestServices,
    celery_app,
    free_port,
    fresh_database,
    wait_for_workers,
)
from conv_tasks.testing.private_postgres import postgres_bin_dir

# Where PostgreSQL's server programs are (CONV_TASKS_TEST_PG_BIN, else the installed ones).
PG_BIN = postgres_bin_dir(TestServices.from_env().pg_bin)

__all__ = [
    "PG_BIN",
    "PrivatePostgres",
    "PrivateRedis",
    "celery_app",
    "free_port",
    "fresh_database",
    "layered_template",
    "log_text",
    "wait_for_workers",
]


def log_text(log_dir: Path) -> dict[str, str]:
    """Every Celery process log in `log_dir`, by file name."""
    return {
        path.name: path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(log_dir.glob("*.log"))
    }


def layered_template(width: int, depth: int, wait: float) -> dict[str, Any]:
    """`depth` layers of `width` TestResources waiting `wait` s, each on the whole layer above."""
    resources: dict[str, Any] = {}
    for layer in range(depth):
        for i in range(width):
            body: dict[str, Any] = {
                "type": "OS::Heat::TestResource",
                "properties": {"value": f"{layer}-{i}", "wait_secs": wait},
            }
            if layer:
                body["depends_on"] = [f"r{layer - 1}_{j}" for j in range(width)]
            resources[f"r{layer}_{i}"] = body
    return {"heat_template_version": "2018-08-31", "resources": resources}
