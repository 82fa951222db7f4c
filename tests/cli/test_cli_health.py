"""`conv-tasks stack check`, `resource mark-unhealthy` and stack tags, driving the real
executable against real workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_process import run, tenant, test_resource, write_template
from sqlalchemy import update

from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope


@pytest.fixture
def who(workers: Any) -> str:
    return tenant()


def test_check_and_mark_unhealthy_from_the_cli(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"a": test_resource("1"), "b": test_resource("2")})
    created = run(who, "stack", "create", "cli-check", "-t", path, "--wait")
    assert created.returncode == 0, created.stdout + created.stderr

    checked = run(who, "stack", "check", "cli-check", "--wait")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "CHECK_COMPLETE" in checked.stdout.splitlines()[-1]

    client = Client(tenant=who, timeout=30)
    physical = {r["name"]: r["physical_id"] for r in client.resources("cli-check")}
    with session_scope() as session:
        session.execute(
            update(SandboxObject).where(SandboxObject.id == physical["b"]).values(deleted=True)
        )
    failed = run(who, "stack", "check", "cli-check", "--wait")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "CHECK_FAILED" in failed.stdout.splitlines()[-1]
    shown = run(who, "--json", "stack", "show", "cli-check")
    assert "b: Resource b: sandbox object" in json.loads(shown.stdout)["status_reason"]

    marked = run(who, "resource", "mark-unhealthy", "cli-check", "a", "--reason", "flaky disk")
    assert marked.returncode == 0, marked.stdout + marked.stderr
    assert marked.stdout.strip() == "cli-check/a: CHECK_FAILED"
    resource = run(who, "--json", "resource", "show", "cli-check", "a")
    assert json.loads(resource.stdout)["status_reason"] == "flaky disk"
    again = run(who, "resource", "mark-unhealthy", "cli-check", "a", "--reset")
    assert again.stdout.strip() == "cli-check/a: CHECK_COMPLETE"

    updated = run(who, "stack", "update", "cli-check", "-t", path, "--wait")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    after = {r["name"]: r["physical_id"] for r in client.resources("cli-check")}
    assert after["a"] == physical["a"]  # the mark was cleared: kept
    assert after["b"] != physical["b"]  # failed its check: replaced


def test_check_of_an_unknown_stack_is_one_line(who: str) -> None:
    done = run(who, "stack", "check", "nope")
    assert done.returncode == 1
    assert "nope" in done.stderr
    assert "Traceback" not in done.stderr


def test_tags_from_the_cli(who: str, tmp_path: Path) -> None:
    path = write_template(tmp_path / "t.json", {"n": {"type": "OS::Heat::None"}})
    for name, tags in (("one", "prod,web"), ("two", "dev")):
        done = run(who, "stack", "create", name, "-t", path, "--tags", tags, "--wait")
        assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(run(who, "--json", "stack", "show", "one").stdout)
    assert shown["tags"] == ["prod", "web"]

    def listed(*args: str) -> set[str]:
        done = run(who, "stack", "list", *args, "-f", "value", "-c", "name")
        assert done.returncode == 0, done.stdout + done.stderr
        return set(done.stdout.split())

    assert listed() == {"one", "two"}
    assert listed("--tags", "prod,web") == {"one"}
    assert listed("--tags-any", "dev,web") == {"one", "two"}
    assert listed("--not-tags", "prod,web") == {"two"}
    assert listed("--not-tags-any", "dev") == {"one"}
    table = run(who, "stack", "list").stdout
    assert '["prod", "web"]' in table

    done = run(who, "stack", "update", "two", "--tags", "", "--existing", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(run(who, "--json", "stack", "show", "two").stdout)["tags"] == []
    refused = run(who, "stack", "create", "three", "-t", path, "--tags", "ok,,x")
    assert refused.returncode == 1
    assert "tags[1]" in refused.stderr
