"""`-f json|yaml|table|value` and `-c COLUMN` on listings, on a command that needs no engine."""

from __future__ import annotations

import json

import yaml
from click.testing import CliRunner, Result

from conv_tasks.cli.commands.stack_views import event_matches
from conv_tasks.cli.main import cli


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_value_format_prints_the_picked_column_alone() -> None:
    result = invoke("resource-type", "list", "-f", "value", "-c", "type")
    assert result.exit_code == 0, result.output
    names = result.stdout.splitlines()
    assert "OS::Heat::TestResource" in names
    assert all(" " not in name for name in names)


def test_value_format_keeps_the_order_of_the_columns() -> None:
    result = invoke("resource-type", "list", "-f", "value", "-c", "status", "-c", "type")
    assert "SUPPORTED OS::Heat::TestResource" in result.stdout.splitlines()


def test_yaml_and_json_give_the_same_rows() -> None:
    as_yaml = yaml.safe_load(invoke("resource-type", "list", "-f", "yaml").stdout)
    as_json = json.loads(invoke("resource-type", "list", "-f", "json").stdout)
    assert as_yaml == as_json
    assert {"type": "OS::Heat::TestResource", "status": "SUPPORTED"} in as_json


def test_json_with_a_column_keeps_only_it() -> None:
    rows = json.loads(invoke("resource-type", "list", "-f", "json", "-c", "type").stdout)
    assert rows and all(list(row) == ["type"] for row in rows)


def test_table_with_a_column_prints_only_it() -> None:
    lines = invoke("resource-type", "list", "-c", "status").stdout.splitlines()
    assert lines[0] == "status"


def test_an_unknown_column_is_a_usage_error_naming_the_columns() -> None:
    result = invoke("resource-type", "list", "-c", "colour")
    assert result.exit_code == 2
    assert "no column colour; the columns are: status, type" in result.output


def test_event_filters() -> None:
    event = {"resource_name": "web", "status": "CREATE_FAILED"}
    stack_event = {"resource_name": None, "status": "CREATE_IN_PROGRESS"}
    assert event_matches(event, [], [])
    assert event_matches(event, ["web"], ["failed"])
    assert event_matches(event, ["db", "web"], ["CREATE_FAILED"])
    assert not event_matches(event, ["db"], [])
    assert not event_matches(event, [], ["COMPLETE"])
    assert not event_matches(event, [], ["_FAILED"[1:-1]])  # "FAILE" is not a status end
    assert event_matches(stack_event, ["stack"], ["IN_PROGRESS"])
    assert not event_matches(stack_event, ["web"], [])
