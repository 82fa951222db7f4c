"""Beat jobs: skipped in one line while PostgreSQL or Redis is down; run only as the lease lets."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis.exceptions
import sqlalchemy.exc

from conv_tasks.beat import BeatLease
from conv_tasks.settings import Settings, get_settings
from conv_tasks.syncpoint.connection import get_redis
from conv_tasks.tasks import beat


def _database_down() -> Any:
    raise sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("connection refused\nmore"))


def test_a_watchdog_run_during_an_outage_is_skipped_in_one_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(beat, "run_watchdog", lambda _env: _database_down())
    monkeypatch.setattr(beat, "engine_env", lambda: None)
    with caplog.at_level(logging.WARNING, logger=beat.__name__):
        result = beat.unfenced_watchdog()
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
    assert beat.unfenced_collect_templates() == {"skipped": "ConnectionError (Connection refused)"}


def test_other_errors_still_fail_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(env: object) -> int:
        raise ValueError("a bug")

    monkeypatch.setattr(beat, "collect", broken)
    monkeypatch.setattr(beat, "engine_env", lambda: None)
    with pytest.raises(ValueError):
        beat.unfenced_collect_templates()


# -- the lease's gate (conv_tasks.beat), against the real Redis, under a prefix of the test's own


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch, redis_client: Any) -> Iterator[list[str]]:
    """The watchdog's body replaced by a recorder; settings with a key prefix of this test's."""
    settings = Settings.from_env(
        {
            "CONV_TASKS_REDIS_URL": get_settings().redis_url,
            "CONV_TASKS_REDIS_PREFIX": f"gate-{uuid.uuid4().hex[:8]}",
        }
    )
    runs: list[str] = []
    monkeypatch.setattr(beat, "get_settings", lambda: settings)
    monkeypatch.setattr(beat, "_watchdog", lambda: runs.append("ran") or {"checked": 0})
    yield runs
    for key in redis_client.scan_iter(match=f"{settings.redis_prefix}:*"):
        redis_client.delete(key)


def _lease(holder: str) -> BeatLease:
    settings = beat.get_settings()
    return BeatLease(
        get_redis(settings.redis_url), prefix=settings.redis_prefix, holder=holder, ttl_ms=10_000
    )


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"epoch": "abc", "slot": 0}, {"epoch": -1, "slot": 0}, {"epoch": 1, "slot": [1]}],
    ids=["no-stamp", "epoch-text", "epoch-negative", "slot-list"],
)
def test_a_job_with_a_bad_stamp_is_refused_in_one_line(
    gated: list[str], caplog: pytest.LogCaptureFixture, kwargs: dict[str, Any]
) -> None:
    assert _lease("a").hold() == 1
    with caplog.at_level(logging.INFO, logger=beat.__name__):
        result = beat.watchdog.run(**kwargs)
    assert set(result) == {"refused"}
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("conv_tasks.beat.watchdog refused: ")
    assert "\n" not in record.getMessage() and record.exc_info is None
    assert gated == []


def test_a_job_runs_once_per_slot_and_never_for_a_lost_lease(
    gated: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    a, b = _lease("a"), _lease("b")
    assert a.hold() == 1
    with caplog.at_level(logging.INFO, logger=beat.__name__):
        assert beat.watchdog.run(epoch=1, slot=30_000) == {"checked": 0}
        assert "refused" in beat.watchdog.run(epoch=1, slot=30_000)  # the same slot again
        assert a.release() and b.hold() == 2
        stale = beat.watchdog.run(epoch=1, slot=60_000)  # sent by a, which lost the lease
        assert beat.watchdog.run(epoch=2, slot=60_000) == {"checked": 0}
    assert gated == ["ran", "ran"]
    assert "its beat lost the lease" in stale["refused"]
    levels = [(r.levelname, r.getMessage().split(":")[0]) for r in caplog.records]
    assert levels == [
        ("INFO", "conv_tasks.beat.watchdog runs slot 30000, due 1970-01-01T00"),
        ("INFO", "conv_tasks.beat.watchdog refused"),  # a new leader repeats a slot: expected
        ("WARNING", "conv_tasks.beat.watchdog refused"),
        ("INFO", "conv_tasks.beat.watchdog runs slot 60000, due 1970-01-01T00"),
    ]


def test_a_gate_that_cannot_write_skips_the_slot_in_one_line(
    gated: list[str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def read_only(*_args: Any, **_kwargs: Any) -> Any:
        raise redis.exceptions.ReadOnlyError("You can't write against a read only replica.")

    monkeypatch.setattr(beat.JobGate, "admit", read_only)
    with caplog.at_level(logging.WARNING, logger=beat.__name__):
        result = beat.watchdog.run(epoch=1, slot=0)
    assert result == {"skipped": "ReadOnlyError (You can't write against a read only replica.)"}
    [record] = caplog.records
    assert record.getMessage().startswith("conv_tasks.beat.watchdog skipped: ReadOnlyError")
    assert gated == []
