"""The purge beat job: scheduled every CONV_TASKS_PURGE_INTERVAL, skipped during an outage."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import sqlalchemy.exc

from conv_tasks.engine import PurgeReport, RetentionPolicy
from conv_tasks.settings import Settings, get_settings
from conv_tasks.tasks import beat


def test_beat_schedules_the_purge_every_purge_interval() -> None:
    import celeryconfig
    from conv_tasks.tasks.app import app

    entry = app.conf.beat_schedule["conv_tasks.beat.purge"]
    assert entry == celeryconfig.beat_schedule["conv_tasks.beat.purge"]
    assert entry["task"] == beat.purge.name == "conv_tasks.beat.purge"
    assert entry["schedule"] == get_settings().purge_interval
    assert "conv_tasks.beat.purge" in app.tasks


def test_the_job_purges_by_the_settings_within_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[RetentionPolicy, float | None]] = []

    def fake_purge(
        db: object, policy: RetentionPolicy, *, budget: float | None = None
    ) -> PurgeReport:
        calls.append((policy, budget))
        return PurgeReport(stacks=2, transactions=5)

    settings = Settings.from_env(
        {"CONV_TASKS_PURGE_DELETED_AFTER": "7d", "CONV_TASKS_PURGE_INTERVAL": "10m"}
    )
    monkeypatch.setattr(beat, "get_settings", lambda: settings)
    monkeypatch.setattr(beat, "purge_rows", fake_purge)
    assert beat.unfenced_purge()["stacks"] == 2
    [(policy, budget)] = calls
    assert policy == RetentionPolicy.from_settings(settings)
    assert policy.deleted_after == 7 * 86400
    assert budget == 300  # half the interval


def test_a_purge_during_an_outage_is_skipped_in_one_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def database_down(*_args: Any, **_kwargs: Any) -> PurgeReport:
        raise sqlalchemy.exc.OperationalError("DELETE", {}, Exception("server closed\nmore"))

    monkeypatch.setattr(beat, "purge_rows", database_down)
    with caplog.at_level(logging.WARNING, logger=beat.__name__):
        result = beat.unfenced_purge()
    assert set(result) == {"skipped"}
    [record] = caplog.records
    assert record.getMessage().startswith("purge skipped: OperationalError (")
    assert record.exc_info is None
