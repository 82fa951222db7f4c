"""Timing settings that fight each other (issue 31, item 6): refused at start with one line,
or warned about, by a real worker and beat."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.settings import Settings
from conv_tasks.tasks.timing_checks import Timings, judge_timings

ENGINE = Timings(longest_backoff=30.0, longest_step=5.0, slowest_type="Example::Slow")


def _judge(redis: bool = True, **env: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    verdict = judge_timings(Settings.from_env(env), ENGINE, redis_broker=redis)
    return verdict.refusals, verdict.warnings


def test_the_defaults_work_together() -> None:
    assert _judge() == ((), ())


def test_the_settings_a_throttled_create_took_minutes_with_are_refused() -> None:
    # Issue 31: a 10 s lease, 20 s stall time, 5 s watchdog and 30 s visibility timeout.
    refusals, warnings = _judge(
        CONV_TASKS_LOCK_TTL="10",
        CONV_TASKS_STALL_AFTER="20",
        CONV_TASKS_WATCHDOG_INTERVAL="5",
        CONV_TASKS_VISIBILITY_TIMEOUT="30",
    )
    assert refusals == ()
    assert warnings == (
        "CONV_TASKS_STALL_AFTER (20 s) is not longer than the engine's longest backoff (30 s): "
        "the watchdog resumes healthy traversals whose nodes are backing off from a throttling "
        "or failing service",
        "CONV_TASKS_VISIBILITY_TIMEOUT (30 s) is not longer than the engine's longest backoff "
        "(30 s): Redis delivers a delayed poll twice",
    )


@pytest.mark.parametrize(
    ("env", "refused"),
    [
        (
            {"CONV_TASKS_LOCK_TTL": "60", "CONV_TASKS_STALL_AFTER": "60"},
            "CONV_TASKS_STALL_AFTER (60 s) must be longer than CONV_TASKS_LOCK_TTL (60 s)",
        ),
        (
            {"CONV_TASKS_LOCK_TTL": "60", "CONV_TASKS_VISIBILITY_TIMEOUT": "45"},
            "CONV_TASKS_VISIBILITY_TIMEOUT (45 s) must be longer than CONV_TASKS_LOCK_TTL (60 s)",
        ),
    ],
)
def test_what_cannot_work_is_refused_naming_both_settings(
    env: dict[str, str], refused: str
) -> None:
    refusals, _ = _judge(**env)
    assert len(refusals) == 1 and refusals[0].startswith(refused), refusals


def test_a_visibility_timeout_means_nothing_on_rabbitmq() -> None:
    env = {"CONV_TASKS_LOCK_TTL": "60", "CONV_TASKS_VISIBILITY_TIMEOUT": "45"}
    assert _judge(redis=False, **env) == ((), ())


def test_a_lease_shorter_than_a_step_budget_is_warned_of_naming_the_type() -> None:
    _, warnings = _judge(CONV_TASKS_LOCK_TTL="4", CONV_TASKS_STALL_AFTER="60")
    assert warnings == (
        "CONV_TASKS_LOCK_TTL (4 s) is not longer than the step budget of Example::Slow (5 s): "
        "a step that takes its whole budget loses its lease, and another worker takes its "
        "action over",
    )


def test_a_worker_and_beat_with_timings_that_cannot_work_stop_with_one_line(
    database_url: str, broker_url: str, tmp_path: Path
) -> None:
    env = {
        "CONV_TASKS_DATABASE_URL": database_url,
        "CONV_TASKS_BROKER_URL": broker_url,
        "CONV_TASKS_LOCK_TTL": "20",
        "CONV_TASKS_STALL_AFTER": "10",
        "CONV_TASKS_VISIBILITY_TIMEOUT": "60",
        "CONV_TASKS_REDIS_PREFIX": f"timings-{uuid.uuid4().hex[:6]}",
    }
    processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
    try:
        worker = processes.start_worker("worker", concurrency=1)
        beat = processes.start_beat()
        assert worker.wait(timeout=60) == 1
        assert beat.wait(timeout=60) == 1
    finally:
        processes.stop_all(timeout=10)
    for name in ("worker", "beat"):
        text = (tmp_path / "logs" / f"{name}.log").read_text(encoding="utf-8")
        said = [line for line in text.splitlines() if "cannot start" in line]
        expected = (
            f"conv-tasks {name} cannot start: CONV_TASKS_STALL_AFTER (10 s) must be longer than "
            "CONV_TASKS_LOCK_TTL (20 s): a traversal waiting out a lease would always be "
            "resumed by the watchdog (docs/operations/configuration.md, Timings that work "
            "together)."
        )
        # Beat's stderr goes through its logger: the line may carry its prefix.
        assert len(said) == 1 and said[0].endswith(expected), text
        assert "Traceback" not in text
