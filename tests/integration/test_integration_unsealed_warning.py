"""A worker (prefork, two children) and a beat started without CONV_TASKS_ENCRYPTION_KEYS each
log the warning exactly once; with a key, neither logs it. They run on an in-memory broker of
their own, so they take none of the suite's tasks."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.secrets_at_rest import new_key

WARNING = "CONV_TASKS_ENCRYPTION_KEYS is not set"


def _started(log: Path, marker: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text() if log.exists() else ""
        if marker in text:
            return text
        time.sleep(0.2)
    raise AssertionError(f"{log.name} never said {marker!r}:\n{log.read_text()[-3000:]}")


@pytest.mark.parametrize("keys", ["", "key"])
def test_worker_and_beat_warn_once_at_start_up_without_a_key(
    database_url: str, tmp_path: Path, keys: str
) -> None:
    env = {
        "CONV_TASKS_BROKER_URL": "memory://",
        "CONV_TASKS_ENCRYPTION_KEYS": new_key() if keys else "",
    }
    procs = CeleryProcesses(tmp_path, env=env, suffix="unsealed")
    procs.start_worker("worker", concurrency=2)
    procs.start_beat("beat")
    try:
        worker_log = _started(tmp_path / "worker.log", "ready.")
        beat_log = _started(tmp_path / "beat.log", "beat: Starting")
        time.sleep(1.0)  # the pool children are up too: none of them may warn again
        worker_log = (tmp_path / "worker.log").read_text()
        beat_log = (tmp_path / "beat.log").read_text()
    finally:
        procs.stop_all()
    expected = 0 if keys else 1
    assert worker_log.count(WARNING) == expected, worker_log[-3000:]
    assert beat_log.count(WARNING) == expected, beat_log[-3000:]
