"""Parsing the metadata task's answer into deployments."""

from __future__ import annotations

import pytest
from agent_fakes import deployment_entry

from conv_tasks.agent.metadata import RunKey, parse_deployment, parse_metadata


def test_a_deployment_is_parsed_with_its_run_key() -> None:
    deployment = parse_deployment(deployment_entry("d1", outputs=("result",)))
    assert deployment.key == RunKey("d1", "CREATE", "2024-01-01T00:00:00")
    assert deployment.group == "script"
    assert [o.name for o in deployment.outputs] == ["result"]
    assert deployment.signal_credential == "signal-secret-d1"


@pytest.mark.parametrize(
    ("value", "aware"),
    [(True, True), ("true", True), ("True", True), (False, False), ("false", False), (None, False)],
)
def test_status_aware_only_when_the_engine_says_true(value: object, aware: bool) -> None:
    entry = deployment_entry(
        aware=None, inputs={} if value is None else {"deploy_status_aware": value}
    )
    assert parse_deployment(entry).status_aware is aware


def test_hook_inputs_leave_out_the_signal_credential() -> None:
    deployment = parse_deployment(deployment_entry(inputs={"greeting": "hello"}))
    inputs = deployment.hook_inputs()
    assert inputs["greeting"] == "hello"
    assert "deploy_signal_credential" not in inputs
    assert "signal-secret" not in deployment.describe()


def test_malformed_entries_are_left_out_with_a_reason() -> None:
    good = deployment_entry("ok")
    parsed = parse_metadata([good, "junk", {"id": "x"}, {**good, "id": "y", "inputs": "nope"}])
    assert [d.id for d in parsed.deployments] == ["ok"]
    assert len(parsed.skipped) == 3
    assert "deployment x left out: action" in parsed.skipped[1]
    assert "inputs must be a list" in parsed.skipped[2]


def test_a_missing_group_is_heats_ungrouped_and_a_missing_time_still_keys_the_run() -> None:
    entry = deployment_entry()
    del entry["group"]
    entry["updated_time"] = None
    deployment = parse_deployment(entry)
    assert deployment.group == "Heat::Ungrouped"
    assert deployment.key.updated_time == "null"
