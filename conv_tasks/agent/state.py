"""The agent's memory on disk: which deployment runs it started and which it finished.

One small JSON file per run, under `<state dir>/runs/`, named by a hash of
the run's key. Every write is atomic and durable (a temporary file written
and fsynced, renamed over the old one, then the directory fsynced), so a
record is either the old one or the new one after any crash. The record of
a run is written *before* its hook starts: a record still STARTED after a
restart means the agent died during the run, and the run is reported as
interrupted instead of being run again. A record that cannot be read counts
as STARTED for the same reason.

The state directory is the agent's alone (mode 0700): a pending final
signal, kept here until the engine has it, holds the deployment's outputs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from conv_tasks.agent.metadata import RunKey


class RunPhase(StrEnum):
    # Written before the hook starts: found after a restart, the run was interrupted.
    STARTED = "started"
    # The hook has finished; its final signal (kept in the record) is not yet acknowledged.
    RAN = "ran"
    # The engine has the final signal, or refused it: the run is never touched again.
    FINISHED = "finished"


@dataclass(frozen=True)
class RunRecord:
    key: RunKey
    phase: RunPhase
    name: str = ""
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    # RAN only: the final signal's details, sent again until the engine answers.
    signal: dict[str, Any] | None = None
    # FINISHED only: COMPLETE, FAILED or why the engine refused the signal.
    outcome: str = ""

    def ran(self, signal: dict[str, Any]) -> RunRecord:
        return replace(self, phase=RunPhase.RAN, signal=signal)

    def finished(self, outcome: str) -> RunRecord:
        return replace(
            self, phase=RunPhase.FINISHED, signal=None, outcome=outcome, finished_at=time.time()
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "deployment": self.key.deployment,
            "action": self.key.action,
            "updated_time": self.key.updated_time,
            "phase": str(self.phase),
            "name": self.name,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "signal": self.signal,
            "outcome": self.outcome,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        return cls(
            key=RunKey(data["deployment"], data["action"], data["updated_time"]),
            phase=RunPhase(data["phase"]),
            name=str(data.get("name") or ""),
            started_at=float(data.get("started_at") or 0.0),
            finished_at=data.get("finished_at"),
            signal=data.get("signal"),
            outcome=str(data.get("outcome") or ""),
        )


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves the old content or the new, whole."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


class StateStore:
    """Run records under one state directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs = root / "runs"
        self.work = root / "work"
        for folder in (root, self.runs, self.work):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(root, 0o700)

    @staticmethod
    def file_stem(key: RunKey) -> str:
        return hashlib.sha256(json.dumps(key.as_list()).encode()).hexdigest()[:32]

    def _path(self, key: RunKey) -> Path:
        return self.runs / f"{self.file_stem(key)}.json"

    def get(self, key: RunKey) -> RunRecord | None:
        path = self._path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            return RunRecord.from_json(json.loads(raw))
        except (ValueError, KeyError, TypeError):
            # Unreadable: the run may have started. Never run it again.
            return RunRecord(key, RunPhase.STARTED, outcome="unreadable record")

    def put(self, record: RunRecord) -> None:
        data = json.dumps(record.to_json(), indent=1, sort_keys=True).encode()
        atomic_write(self._path(record.key), data)

    def forget(self, key: RunKey) -> None:
        """Drop a record whose run never started its hook (so it may start later)."""
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()
            _fsync_dir(self.runs)

    def records(self) -> Iterator[RunRecord]:
        for path in sorted(self.runs.glob("*.json")):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                yield RunRecord.from_json(json.loads(path.read_bytes()))

    def workdir(self, key: RunKey) -> Path:
        """A fresh, private working directory for one run's hook."""
        path = self.work / self.file_stem(key)
        self.clear_workdir(key)
        path.mkdir(mode=0o700, parents=True)
        return path

    def clear_workdir(self, key: RunKey) -> None:
        shutil.rmtree(self.work / self.file_stem(key), ignore_errors=True)
