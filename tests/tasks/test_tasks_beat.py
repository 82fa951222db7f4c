"""Beat jobs that meet PostgreSQL or Redis down skip one run with one warning, no traceback."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import redis.exceptions
import sqlalchemy.exc

from conv_tasks.tasks import beat


def _database_down() -> Any:
    raise sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("connection refused\nmore"))


def test_a_watchdog_run_during_an_outage_is_skipped_in_one_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(beat, "run_watchdog", lambda _env: _database_down())
    monkeypatch.setattr(beat, "engine_env", lambda: None)
    with caplog.at_level(logging.WARNING, logger=beat.__name__):
        result = beat.watchdog.run()
    assert set(result) == {"skipped"}
    assert "OperationalError" in result["skipped"]
    [record] = caplog.records
    assert record.getMessage().startswith("watchdog skipped: OperationalError (")
    assert "\n" not in record.getMessage()
    assert record.exc_info is None


def test_template_collection_skips_a_redis_outage(monkeypatch: pytest.MonkeyPatch) -> None:
    def redis_down(env: object) -> int:
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(beat, "collect", redis_down)
    monkeypatch.setattr(beat, "engine_env", lambda: None)
    assert beat.collect_templates.run() == {"skipped": "ConnectionError (Connection refused)"}


def test_other_errors_still_fail_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(env: object) -> int:
        raise ValueError("a bug")

    monkeypatch.setattr(beat, "collect", broken)
    monkeypatch.setattr(beat, "engine_env", lambda: None)
    with pytest.raises(ValueError):
        beat.collect_templates.run()
