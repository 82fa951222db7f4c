"""Periodic jobs run by celery beat: the traversal watchdog and the template collector.

A job that meets PostgreSQL or Redis down (a restart) does nothing this time
and says so in one line: beat runs it again at its next interval.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from conv_tasks.engine.watchdog import collect_templates as collect
from conv_tasks.engine.watchdog import run_watchdog
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import engine_env
from conv_tasks.tasks.transient import TRANSIENT_FAULTS, describe

log = logging.getLogger(__name__)


def _unless_unavailable(job: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return run()
    except TRANSIENT_FAULTS as exc:
        log.warning("%s skipped: %s; it runs again at its next interval", job, describe(exc))
        return {"skipped": describe(exc)}


def _watchdog() -> dict[str, Any]:
    report = run_watchdog(engine_env())
    return {
        "checked": report.checked,
        "restarted": list(report.restarted),
        "timed_out": list(report.timed_out),
    }


@app.task(name="conv_tasks.beat.watchdog", acks_late=False)
def watchdog() -> dict[str, Any]:
    return _unless_unavailable("watchdog", _watchdog)


@app.task(name="conv_tasks.beat.collect_templates", acks_late=False)
def collect_templates() -> dict[str, Any]:
    return _unless_unavailable("template collection", lambda: {"deleted": collect()})
