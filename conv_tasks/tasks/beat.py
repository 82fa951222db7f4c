"""Periodic jobs run by celery beat: the traversal watchdog, the template collector, the purge.

Any number of beats run; the one holding the lease sends each job stamped with the lease's
fencing epoch and the job's slot (conv_tasks.beat). A job runs only if its epoch is still the
lease's and its slot has not run yet; otherwise, and for a stamp that is missing or malformed
(a message from another service), it is refused in one log line and does nothing.

A job that meets PostgreSQL or Redis down (a restart) does nothing this time
and says so in one line: beat runs it again at its next interval.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import redis.exceptions

from conv_tasks.beat import JobGate, Verdict, keep_ms, read_stamp, refusal
from conv_tasks.engine import RetentionPolicy, run_watchdog
from conv_tasks.engine import collect_templates as collect
from conv_tasks.engine import purge as purge_rows
from conv_tasks.faults import TRANSIENT_FAULTS, describe
from conv_tasks.settings import get_settings
from conv_tasks.syncpoint import get_redis
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import engine_env

log = logging.getLogger(__name__)


def _unless_unavailable(job: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return run()
    except TRANSIENT_FAULTS as exc:
        log.warning("%s skipped: %s; it runs again at its next interval", job, describe(exc))
        return {"skipped": describe(exc)}


def _fenced(
    task: str, every: float, epoch: object, slot: object, run: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """Run the job if its stamp lets it, else refuse it in one line."""
    stamp = read_stamp(epoch, slot)
    if isinstance(stamp, str):
        log.warning("%s refused: %s", task, stamp)
        return {"refused": stamp}
    settings = get_settings()
    gate = JobGate(get_redis(settings.redis_url), prefix=settings.redis_prefix)
    try:
        verdict, seen = gate.admit(task, stamp, keep_ms=keep_ms(round(every * 1000)))
    except redis.exceptions.ResponseError as exc:
        # A replica answering READONLY during a failover, say: no lost connection, but no
        # answer either; the next slot is sent again.
        log.warning("%s skipped: %s; it runs again at its next interval", task, describe(exc))
        return {"skipped": describe(exc)}
    if verdict is not Verdict.RUN:
        why = refusal(stamp, verdict, seen)
        # A new leader sends the slot its predecessor may have run: expected, not a warning.
        log.log(
            logging.INFO if verdict is Verdict.DONE else logging.WARNING,
            "%s refused: %s",
            task,
            why,
        )
        return {"refused": why}
    log.info(
        "%s runs slot %d, due %s (beat lease epoch %d)", task, stamp.slot, stamp.due(), stamp.epoch
    )
    return run()


def _watchdog() -> dict[str, Any]:
    report = run_watchdog(engine_env())
    return {
        "checked": report.checked,
        "restarted": list(report.restarted),
        "timed_out": list(report.timed_out),
    }


def unfenced_watchdog() -> dict[str, Any]:
    """The watchdog's run, with no lease check (what a stamped job runs once let through)."""
    return _unless_unavailable("watchdog", _watchdog)


@app.task(name="conv_tasks.beat.watchdog", acks_late=False)
def watchdog(epoch: object = None, slot: object = None) -> dict[str, Any]:
    every = get_settings().watchdog_interval
    return _unless_unavailable(
        "watchdog", lambda: _fenced(watchdog.name, every, epoch, slot, _watchdog)
    )


def _collect() -> dict[str, Any]:
    return {"deleted": collect(engine_env())}


def unfenced_collect_templates() -> dict[str, Any]:
    """The template collection, with no lease check."""
    return _unless_unavailable("template collection", _collect)


@app.task(name="conv_tasks.beat.collect_templates", acks_late=False)
def collect_templates(epoch: object = None, slot: object = None) -> dict[str, Any]:
    every = get_settings().gc_interval
    return _unless_unavailable(
        "template collection",
        lambda: _fenced(collect_templates.name, every, epoch, slot, _collect),
    )


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


def unfenced_purge() -> dict[str, Any]:
    """The purge, with no lease check."""
    return _unless_unavailable("purge", _purge)


@app.task(name="conv_tasks.beat.purge", acks_late=False)
def purge(epoch: object = None, slot: object = None) -> dict[str, Any]:
    """Deleted stacks past CONV_TASKS_PURGE_DELETED_AFTER and events past the event retention."""
    every = get_settings().purge_interval
    return _unless_unavailable("purge", lambda: _fenced(purge.name, every, epoch, slot, _purge))
