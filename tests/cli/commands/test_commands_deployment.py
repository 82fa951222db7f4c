"""`conv-tasks deployment list|show|credential`, against a stand-in client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner, Result

from conv_tasks.cli.context import Context
from conv_tasks.cli.main import cli

SHOWN = {
    "name": "deploy",
    "server": "web-1",
    "status": "CREATE_COMPLETE",
    "outputs": {"result": "42"},
    "deploy_status_code": 0,
    "deploy_stdout": "hello\n",
    "deploy_stderr": "",
    "events": [
        {"time": "t1", "status": "SIGNAL_IN_PROGRESS", "reason": "the server has started"},
        {"time": "t2", "status": "CREATE_COMPLETE", "reason": ""},
    ],
}


class FakeClient:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def deployments(self, stack: str) -> list[dict[str, Any]]:
        self.calls.append(("deployments", (stack,), {}))
        return [{"name": "deploy", "server": "web-1", "status": "CREATE_IN_PROGRESS"}]

    def deployment(self, stack: str, name: str) -> dict[str, Any]:
        self.calls.append(("deployment", (stack, name), {}))
        return json.loads(json.dumps(SHOWN))

    def deployment_credential(self, stack: str, server: str, *, rotate: bool) -> dict[str, Any]:
        self.calls.append(("deployment_credential", (stack, server), {"rotate": rotate}))
        return {"stack_id": "s", "server": server, "credential": "SECRET", "rotated": rotate}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeClient:
    client = FakeClient()
    monkeypatch.setattr(Context, "client", lambda self: client)
    return client


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_list_prints_a_table(fake: FakeClient) -> None:
    result = invoke("deployment", "list", "web")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].split() == [
        "name",
        "server",
        "status",
        "status_reason",
        "updated_time",
    ]
    assert "CREATE_IN_PROGRESS" in result.stdout
    assert fake.calls == [("deployments", ("web",), {})]


def test_show_prints_fields_events_and_the_logs(fake: FakeClient) -> None:
    result = invoke("deployment", "show", "web", "deploy")
    assert result.exit_code == 0, result.output
    assert "the server has started" in result.stdout
    assert "stdout (its end):\nhello" in result.stdout
    assert "stderr" not in result.stdout.split("events:")[1]
    assert json.loads(invoke("--json", "deployment", "show", "web", "deploy").stdout) == SHOWN


def test_credential_prints_the_credential_only(fake: FakeClient) -> None:
    result = invoke("deployment", "credential", "web", "web-1")
    assert result.exit_code == 0, result.output
    assert result.stdout == "SECRET\n"
    invoke("deployment", "credential", "--rotate", "web", "web-1")
    assert fake.calls[-1] == ("deployment_credential", ("web", "web-1"), {"rotate": True})
