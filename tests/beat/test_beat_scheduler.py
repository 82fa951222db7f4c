"""LeasedScheduler: interval jobs only (a refusal names the entry); no lease, no sends."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from celery import Celery
from celery.schedules import crontab
from redis.backoff import NoBackoff
from redis.retry import Retry

from conv_tasks.beat import scheduler as scheduler_module
from conv_tasks.beat.scheduler import BACKEND_CLEANUP, LeasedScheduler, ScheduleNotSupported
from conv_tasks.beat.slots import Job
from conv_tasks.testing import free_port


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


def test_a_beat_that_cannot_reach_the_lease_sends_nothing_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    nowhere = redis.Redis(
        host="127.0.0.1", port=free_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0)
    )
    monkeypatch.setattr(scheduler_module, "get_redis", lambda _url: nowhere)
    app = _app({"w": {"task": "conv_tasks.beat.watchdog", "schedule": 0.2}})
    scheduler = LeasedScheduler(app=app)
    sent: list[str] = []
    monkeypatch.setattr(scheduler, "send_task", lambda name, *a, **k: sent.append(name))
    with caplog.at_level(logging.INFO, logger=scheduler_module.__name__):
        for _ in range(3):
            wait = scheduler.tick()
            assert 0 < wait <= 0.2
            scheduler._next_hold = 0.0  # try the lease again at once
    assert sent == []
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("beat: the lease in Redis cannot be reached (ConnectionError")
