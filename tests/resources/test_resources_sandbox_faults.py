"""The sandbox's fault plan (CONV_TASKS_SANDBOX_FAULTS): while its file exists, that share of
the sandbox's calls raise Throttled or Transient and do nothing; the file is read again when
it changes; without it, or with one that is not a plan, the sandbox behaves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from resources_sandbox import MemorySandbox

from conv_tasks.provider_errors import Throttled, Transient
from conv_tasks.resources import sandbox_with_faults
from conv_tasks.resources.sandbox_faults import FaultySandbox
from conv_tasks.settings import Settings


def _plan(path: Path, **plan: float) -> None:
    path.write_text(json.dumps({"seed": 7, **plan}))


def test_without_a_path_the_sandbox_is_the_sandbox() -> None:
    inner = MemorySandbox()
    assert sandbox_with_faults(inner, "") is inner
    assert Settings.from_env({}).sandbox_faults_file == ""
    given = Settings.from_env({"CONV_TASKS_SANDBOX_FAULTS": "/run/faults.json"})
    assert given.sandbox_faults_file == "/run/faults.json"


def test_every_call_is_throttled_while_the_plan_says_so_and_none_acts(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    inner = MemorySandbox()
    sandbox = sandbox_with_faults(inner, str(path))
    made = sandbox.create("t1", "kit", {"value": 1})  # no file yet: it behaves
    _plan(path, throttled=1.0, retry_after=2)
    with pytest.raises(Throttled) as throttled:
        sandbox.create("t2", "kit", {"value": 2})
    assert throttled.value.retry_after == 2.0
    assert "throttled (its fault plan)" in str(throttled.value)
    with pytest.raises(Throttled):
        sandbox.get(made)
    with pytest.raises(Throttled):
        sandbox.delete(made)
    assert [call for call, _ in inner.calls] == ["create"]  # the throttled calls did nothing
    path.unlink()
    assert sandbox.get(made) is not None


def test_an_unavailable_call_is_transient_and_not_throttled(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    _plan(path, unavailable=1.0)
    sandbox = sandbox_with_faults(MemorySandbox(), str(path))
    with pytest.raises(Transient) as failed:
        sandbox.update("x", {"value": 1})
    assert not isinstance(failed.value, Throttled)


def test_the_draws_follow_the_seed_and_start_again_when_the_plan_changes(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"

    def outcomes(sandbox: FaultySandbox, n: int) -> list[str]:
        seen = []
        for i in range(n):
            try:
                sandbox.create(f"t{i}", "kit", {})
                seen.append("ok")
            except Throttled:
                seen.append("throttled")
            except Transient:
                seen.append("unavailable")
        return seen

    _plan(path, throttled=0.3, unavailable=0.3)
    first = outcomes(FaultySandbox(MemorySandbox(), str(path)), 40)
    second = outcomes(FaultySandbox(MemorySandbox(), str(path)), 40)
    assert first == second
    assert {"ok", "throttled", "unavailable"} == set(first)
    path.write_text(json.dumps({"seed": 8, "throttled": 0.0, "unavailable": 0.0}))
    assert outcomes(FaultySandbox(MemorySandbox(), str(path)), 10) == ["ok"] * 10


def test_a_file_that_is_not_a_plan_leaves_the_sandbox_well(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "faults.json"
    path.write_text('{"throttled": "often"}')
    sandbox = sandbox_with_faults(MemorySandbox(), str(path))
    assert sandbox.get(sandbox.create("t", "kit", {})) is not None
    assert "cannot be read" in caplog.text and str(path) in caplog.text
