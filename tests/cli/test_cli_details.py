"""`resource show`, `output show`, `template show`, `stack events` filters and --follow, and
-f/-c on listings: the real `conv-tasks` executable against real workers. A hidden
parameter's value never appears in what they print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_process import run, tenant, test_resource, write_template

SECRET = "hunter2-very-secret"
DEFAULT_SECRET = "default-secret-value"


@pytest.fixture(scope="module")
def world(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A completed stack with a resource built from a hidden parameter, and a plain one."""
    who = tenant()
    path = write_template(
        tmp_path_factory.mktemp("details") / "t.json",
        {
            "secret": test_resource({"get_param": "password"}),
            "plain": {**test_resource("visible"), "depends_on": ["secret"]},
        },
        parameters={
            "password": {"type": "string", "hidden": True, "default": DEFAULT_SECRET},
        },
        outputs={
            "secret_out": {"value": {"get_attr": ["secret", "output"]}},
            "plain_out": {"value": {"get_attr": ["plain", "output"]}, "description": "d"},
        },
    )
    done = run(who, "stack", "create", "web", "-t", path, "-P", f"password={SECRET}", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    return who


def shown(done: Any) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert DEFAULT_SECRET not in done.stdout + done.stderr
    return str(done.stdout)


def test_resource_show_masks_a_property_from_a_hidden_parameter(world: str) -> None:
    data = json.loads(shown(run(world, "resource", "show", "web", "secret", "-f", "json")))
    assert data["name"] == "secret"
    assert data["status"] == "CREATE_COMPLETE"
    assert data["properties"]["value"] == "******"
    assert data["attributes"] and set(data["attributes"].values()) == {"******"}
    assert [v["version"] for v in data["versions"]] == [data["version"]]
    assert [e["status"] for e in data["events"]] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


def test_resource_show_table_of_a_plain_resource(world: str) -> None:
    text = shown(run(world, "resource", "show", "web", "plain"))
    lines = text.splitlines()
    assert "properties:" in lines and "attributes:" in lines
    assert "versions:" in lines and "events (latest):" in lines
    props = lines[lines.index("properties:") + 1 : lines.index("attributes:")]
    assert any(line.split() == ["value", "visible"] for line in props)
    assert sum("CREATE_COMPLETE" in line for line in lines) >= 2  # the head, its event


def test_resource_show_of_an_unknown_resource_is_one_line(world: str) -> None:
    done = run(world, "resource", "show", "web", "nothing")
    assert done.returncode == 1
    assert done.stderr == "ERROR: Stack 'web' has no resource 'nothing'.\n"


def test_output_show(world: str) -> None:
    secret = json.loads(shown(run(world, "output", "show", "web", "secret_out", "-f", "json")))
    assert secret["output"] == "secret_out" and secret["value"] == "******"
    text = shown(run(world, "output", "show", "web", "plain_out", "-f", "value", "-c", "value"))
    assert text == "visible\n"
    done = run(world, "output", "show", "web", "nope")
    assert done.returncode == 1 and "has no output 'nope'" in done.stderr


def test_template_show_masks_the_hidden_default(world: str) -> None:
    document = yaml.safe_load(shown(run(world, "template", "show", "web")))
    assert document["parameters"]["password"] == {
        "type": "string",
        "hidden": True,
        "default": "******",
    }
    assert document["resources"]["secret"]["properties"] == {"value": {"get_param": "password"}}
    as_json = json.loads(shown(run(world, "template", "show", "web", "-f", "json")))
    assert as_json == document


def test_events_filtered_by_resource_and_status(world: str) -> None:
    rows = json.loads(
        shown(run(world, "stack", "events", "web", "--resource", "plain", "-f", "json"))
    )
    assert [r["status"] for r in rows] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert {r["resource_name"] for r in rows} == {"plain"}
    text = shown(
        run(
            world,
            "stack",
            "events",
            "web",
            "--status",
            "COMPLETE",
            "-f",
            "value",
            "-c",
            "resource_name",
            "-c",
            "status",
        )
    )
    # The stack's own event has no resource name: its line starts with the status.
    assert sorted(text.splitlines()) == sorted(
        ["secret CREATE_COMPLETE", "plain CREATE_COMPLETE", " CREATE_COMPLETE"]
    )


def test_events_latest_are_the_newest_that_match(world: str) -> None:
    every = json.loads(shown(run(world, "stack", "events", "web", "-f", "json")))
    assert len(every) == 6
    newest = json.loads(shown(run(world, "stack", "events", "web", "--latest", "2", "-f", "json")))
    assert newest == every[-2:]
    # With a filter: the newest that match, older than the newest events of all.
    filtered = ["--latest", "1", "--status", "IN_PROGRESS", "-f", "json"]
    started = json.loads(shown(run(world, "stack", "events", "web", *filtered)))
    assert [(e["resource_name"], e["status"]) for e in started] == [("plain", "CREATE_IN_PROGRESS")]
    # --follow on an ended operation: the newest n, then the end.
    lines = shown(run(world, "stack", "events", "web", "--follow", "--latest", "1")).splitlines()
    assert len(lines) == 2 and "CREATE_COMPLETE" in lines[0]
    assert lines[-1] == "web: CREATE_COMPLETE"
    done = run(world, "stack", "events", "web", "--latest", "-1")
    assert done.returncode == 2 and "--latest" in done.stderr


def test_events_follow_prints_until_the_operation_ends(world: str, tmp_path: Path) -> None:
    who = tenant()  # its own: the other tests count the world's stacks
    path = write_template(tmp_path / "t.json", {"slow": test_resource("s", wait_secs=1)})
    assert run(who, "stack", "create", "followed", "-t", path).returncode == 0
    done = run(who, "stack", "events", "followed", "--follow", "--resource", "slow")
    text = shown(done)
    lines = text.splitlines()
    assert "slow" in lines[0] and "CREATE_IN_PROGRESS" in lines[0]
    assert "slow" in lines[1] and "CREATE_COMPLETE" in lines[1]
    assert lines[-1] == "followed: CREATE_COMPLETE"
    assert len(lines) == 3


def test_stack_list_formats_and_columns(world: str) -> None:
    assert shown(run(world, "stack", "list", "-f", "value", "-c", "name")) == "web\n"
    rows = yaml.safe_load(shown(run(world, "stack", "list", "-f", "yaml", "-c", "status")))
    assert rows == [{"status": "CREATE_COMPLETE"}]
    names = shown(run(world, "stack", "resources", "web", "-f", "value", "-c", "name"))
    assert names.splitlines() == ["secret", "plain"]  # the template's order
    done = run(world, "stack", "list", "-c", "colour")
    assert done.returncode == 2 and "no column colour" in done.stderr
