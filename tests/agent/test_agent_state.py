"""The run records on disk."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conv_tasks.agent import state as state_module
from conv_tasks.agent.metadata import RunKey
from conv_tasks.agent.state import RunPhase, RunRecord, StateStore, atomic_write

KEY = RunKey("dep-1", "CREATE", "2024-01-01T00:00:00")


def test_a_record_goes_started_ran_finished(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    assert store.get(KEY) is None
    record = RunRecord(KEY, RunPhase.STARTED, name="d")
    store.put(record)
    assert store.get(KEY) == record
    store.put(record.ran({"deploy_status_code": 0}))
    got = store.get(KEY)
    assert got is not None and got.phase is RunPhase.RAN and got.signal == {"deploy_status_code": 0}
    store.put(got.finished("COMPLETE"))
    done = store.get(KEY)
    assert done is not None and done.phase is RunPhase.FINISHED
    assert done.signal is None  # outputs are not kept once the engine has them
    assert done.outcome == "COMPLETE"
    assert [r.key for r in store.records()] == [KEY]


def test_state_is_private(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    store.put(RunRecord(KEY, RunPhase.STARTED))
    assert stat.S_IMODE(os.stat(store.root).st_mode) == 0o700
    for path in store.runs.iterdir():
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_an_unreadable_record_counts_as_started(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    store.put(RunRecord(KEY, RunPhase.FINISHED))
    next(store.runs.iterdir()).write_text("{not json")
    record = store.get(KEY)
    assert record is not None and record.phase is RunPhase.STARTED


def test_forget_drops_a_record(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    store.put(RunRecord(KEY, RunPhase.STARTED))
    store.forget(KEY)
    store.forget(KEY)
    assert store.get(KEY) is None


def test_a_failed_write_leaves_the_old_record_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = StateStore(tmp_path / "state")
    store.put(RunRecord(KEY, RunPhase.STARTED))

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(state_module.os, "replace", broken_replace)
    with pytest.raises(OSError):
        store.put(RunRecord(KEY, RunPhase.FINISHED))
    monkeypatch.undo()
    record = store.get(KEY)
    assert record is not None and record.phase is RunPhase.STARTED
    assert [p.name for p in store.runs.iterdir()] == [f"{store.file_stem(KEY)}.json"]


def test_atomic_write_replaces_whole(tmp_path: Path) -> None:
    target = tmp_path / "f"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_workdirs_are_fresh_and_removed(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state")
    work = store.workdir(KEY)
    (work / "leftover").write_text("x")
    assert not any(store.workdir(KEY).iterdir())
    store.clear_workdir(KEY)
    assert not work.exists()
