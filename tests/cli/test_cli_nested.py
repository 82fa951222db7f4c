"""Nested stacks at the CLI: `stack list --show-nested`, `stack show` of a child,
`stack events` / `resource list --nested-depth`, and a child refused a direct delete. The
real `conv-tasks` executable against real workers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli_process import run, tenant, test_resource, write_template


@pytest.fixture(scope="module")
def world(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    who = tenant()
    child = {"heat_template_version": "2018-08-31", "resources": {"leaf": test_resource("l")}}
    path = write_template(
        tmp_path_factory.mktemp("nested") / "t.json",
        {"inner": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}}},
    )
    done = run(who, "stack", "create", "web", "-t", path, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    return who


def _json(done: Any) -> Any:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_stack_list_hides_nested_stacks_unless_asked(world: str) -> None:
    assert [s["name"] for s in _json(run(world, "stack", "list", "-f", "json"))] == ["web"]
    rows = _json(run(world, "stack", "list", "--show-nested", "-f", "json"))
    assert len(rows) == 2
    [child] = [r for r in rows if r["name"] != "web"]
    assert child["name"].startswith("web-inner-") and child["parent_stack_id"]
    shown = _json(run(world, "stack", "show", child["name"], "-f", "json"))
    assert shown["parent_stack_name"] == "web" and shown["parent_resource"] == "inner"


def test_events_and_resources_of_nested_stacks(world: str) -> None:
    events = _json(run(world, "stack", "events", "web", "--nested-depth", "1", "-f", "json"))
    assert any(e["resource_name"] == "leaf" and e["stack_name"] != "web" for e in events)
    own = _json(run(world, "stack", "events", "web", "-f", "json"))
    assert all(e["resource_name"] != "leaf" for e in own)
    rows = _json(run(world, "resource", "list", "web", "--nested-depth", "1", "-f", "json"))
    assert [r["name"] for r in rows] == ["inner", "leaf"]
    table = run(world, "stack", "resources", "web", "--nested-depth", "1")
    assert table.returncode == 0 and "stack_name" in table.stdout


def test_a_nested_stack_refuses_a_direct_delete(world: str) -> None:
    rows = _json(run(world, "stack", "list", "--show-nested", "-f", "json"))
    [child] = [r for r in rows if r["name"] != "web"]
    done = run(world, "stack", "delete", child["name"], "--yes")
    assert done.returncode != 0
    assert "nested in stack 'web'" in done.stdout + done.stderr
