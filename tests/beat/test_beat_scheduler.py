"""LeasedScheduler's reading of the schedule: interval jobs only, each named in any refusal."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from celery import Celery
from celery.schedules import crontab

from conv_tasks.beat.scheduler import BACKEND_CLEANUP, LeasedScheduler, ScheduleNotSupported
from conv_tasks.beat.slots import Job


def _app(schedule: dict[str, dict[str, object]], backend: str = "redis://127.0.0.1:1/0") -> Celery:
    app = Celery("beat-test", broker="memory://", backend=backend)
    app.conf.beat_schedule = schedule
    return app


def test_interval_entries_become_jobs_with_a_lease_of_half_the_shortest() -> None:
    scheduler = LeasedScheduler(
        app=_app(
            {
                "w": {"task": "conv_tasks.beat.watchdog", "schedule": 30.0},
                "g": {
                    "task": "conv_tasks.beat.collect_templates",
                    "schedule": timedelta(minutes=5),
                },
            }
        )
    )
    assert scheduler._jobs == [
        Job("g", "conv_tasks.beat.collect_templates", every_ms=300_000),
        Job("w", "conv_tasks.beat.watchdog", every_ms=30_000),
    ]
    assert scheduler._terms.ttl_ms == 15_000


def test_a_crontab_entry_is_refused_by_name() -> None:
    app = _app({"nightly": {"task": "conv_tasks.beat.purge", "schedule": crontab(hour=3)}})
    with pytest.raises(ScheduleNotSupported, match=r"beat_schedule entry 'nightly': .*interval"):
        LeasedScheduler(app=app)


def test_celerys_result_cleanup_runs_daily_and_unstamped(tmp_path: Path) -> None:
    # A result backend that cannot expire results itself (files): Celery adds its clean-up,
    # as a crontab, which LeasedScheduler makes a daily interval.
    app = _app({}, backend=f"file://{tmp_path}")
    scheduler = LeasedScheduler(app=app)
    [job] = scheduler._jobs
    assert job == Job(BACKEND_CLEANUP, BACKEND_CLEANUP, every_ms=86_400_000, fenced=False)
