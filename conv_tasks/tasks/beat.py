"""Periodic jobs run by celery beat: the traversal watchdog, the template collector, the purge.

A job that meets PostgreSQL or Redis down (a restart) does nothing this time
and says so in one line: beat runs it again at its next interval.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from conv_tasks.engine import RetentionPolicy, run_watchdog
from conv_tasks.engine import collect_templates as collect
from conv_tasks.engine import purge as purge_rows
from conv_tasks.faults import TRANSIENT_FAULTS, describe
from conv_tasks.settings import get_settings
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import engine_env

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
    return _unless_unavailable("template collection", lambda: {"deleted": collect(engine_env())})


# At most this share of the interval on one purge (and never more than ten minutes), so that a
# first purge of a large backlog does not keep a worker process for hours: the next run goes on.
PURGE_BUDGET_SHARE = 0.5
PURGE_BUDGET_MAX = 600.0


def _purge() -> dict[str, Any]:
    settings = get_settings()
    budget = min(settings.purge_interval * PURGE_BUDGET_SHARE, PURGE_BUDGET_MAX)
    report = purge_rows(engine_env().db, RetentionPolicy.from_settings(settings), budget=budget)
    if report.stacks or report.old_events or not report.finished:
        log.info("purge: %s", report.to_dict())
    return report.to_dict()


@app.task(name="conv_tasks.beat.purge", acks_late=False)
def purge() -> dict[str, Any]:
    """Deleted stacks past CONV_TASKS_PURGE_DELETED_AFTER and events past the event retention."""
    return _unless_unavailable("purge", _purge)
