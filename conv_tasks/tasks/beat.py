"""Periodic jobs run by celery beat: the traversal watchdog and the template collector."""

from __future__ import annotations

from typing import Any

from conv_tasks.engine.watchdog import collect_templates as collect
from conv_tasks.engine.watchdog import run_watchdog
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import engine_env


@app.task(name="conv_tasks.beat.watchdog", acks_late=False)
def watchdog() -> dict[str, Any]:
    report = run_watchdog(engine_env())
    return {
        "checked": report.checked,
        "restarted": list(report.restarted),
        "timed_out": list(report.timed_out),
    }


@app.task(name="conv_tasks.beat.collect_templates", acks_late=False)
def collect_templates() -> dict[str, Any]:
    return {"deleted": collect()}
