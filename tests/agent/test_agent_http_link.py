"""The agent's HTTP line to the edge, with the edge replaced by httpx's MockTransport (no
services): what it sends, and what it makes of each kind of answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_fakes import SERVER_CREDENTIAL, FakeServer, deployment_entry
from click.testing import CliRunner

from conv_tasks.agent import http_link
from conv_tasks.agent.http_link import HttpServerLink, edge_url
from conv_tasks.agent.link import ServerUnreachable
from conv_tasks.cli.main import cli

URL = "http://edge.test:8004"


def link_to(handler: Any) -> tuple[HttpServerLink, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)  # type: ignore[no-any-return]

    def client(timeout: float) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(record), timeout=timeout)

    return HttpServerLink(URL + "/", client_factory=client), seen


def fault(status: int, kind: str, message: str) -> httpx.Response:
    body = {
        "code": status,
        "title": "Refused",
        "explanation": "The request was refused.",
        "error": {"type": kind, "message": message, "traceback": None},
    }
    return httpx.Response(status, json=body)


def test_fetch_asks_for_the_servers_deployments_with_the_credential_in_a_header() -> None:
    answer = {"ok": True, "deployments": [{"id": "d1"}]}
    link, seen = link_to(lambda _request: httpx.Response(200, json=answer))
    got = link.fetch("web/1", SERVER_CREDENTIAL)
    assert got.ok and got.data == answer
    [request] = seen
    assert request.method == "GET"
    assert str(request.url) == f"{URL}/agent/v1/servers/web%2F1/deployments"
    assert request.headers["X-Auth-Token"] == SERVER_CREDENTIAL
    assert SERVER_CREDENTIAL not in str(request.url)


def test_signal_posts_the_action_and_details() -> None:
    link, seen = link_to(lambda _request: httpx.Response(200, json={"ok": True}))
    assert link.signal("d-1", SERVER_CREDENTIAL, "CREATE", {"deploy_status": "COMPLETE"}).ok
    [request] = seen
    assert (request.method, request.url.path) == ("POST", "/agent/v1/deployments/d-1/signal")
    assert json.loads(request.content) == {
        "action": "CREATE",
        "details": {"deploy_status": "COMPLETE"},
    }


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, "not_authorized"), (403, "not_authorized"), (404, "not_found"), (409, "conflict"),
     (400, "invalid"), (413, "invalid")],
)  # fmt: skip
def test_a_refusal_says_its_kind_and_the_edges_message(status: int, kind: str) -> None:
    link, _ = link_to(lambda _request: fault(status, "Whatever", "the deployment is gone"))
    got = link.fetch("web-1", SERVER_CREDENTIAL)
    assert (got.ok, got.error, got.message) == (False, kind, "the deployment is gone")


@pytest.mark.parametrize(
    "answer",
    [
        lambda _r: httpx.Response(502, text="bad gateway"),
        lambda _r: httpx.Response(200, text="<html>a proxy's page</html>"),
        lambda r: (_ for _ in ()).throw(httpx.ConnectError("connection refused", request=r)),
    ],
    ids=["5xx", "not-json", "no-connection"],
)
def test_no_answer_is_unreachable_and_never_names_the_credential(answer: Any) -> None:
    link, _ = link_to(answer)
    with pytest.raises(ServerUnreachable) as raised:
        link.signal("d-1", SERVER_CREDENTIAL, "CREATE", {})
    assert SERVER_CREDENTIAL not in str(raised.value)
    assert "/agent/v1/deployments/d-1/signal" in str(raised.value)


@pytest.mark.parametrize(
    "bad", ["file:///etc/passwd", "ftp://edge", "edge.test:8004", "http://edge/?x=1", "http://"]
)
def test_an_edge_url_must_be_http_with_a_host(bad: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        edge_url(bad)


def _agent(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    cred = tmp_path / "cred"
    cred.write_text(SERVER_CREDENTIAL)
    common = ["--server", "srv-1", "--credential-file", str(cred), "--state-dir", str(tmp_path)]
    return CliRunner().invoke(cli, ["agent", *common, "--once", *args], env=env)


def test_the_agent_needs_a_way_to_the_engine(tmp_path: Path) -> None:
    result = _agent(tmp_path, env={"CONV_TASKS_AGENT_URL": ""})
    assert result.exit_code == 2
    assert "--url" in result.output and "--broker" in result.output


def test_url_and_broker_together_are_refused(tmp_path: Path) -> None:
    result = _agent(tmp_path, "--url", URL, "--broker")
    assert result.exit_code == 2 and "not both" in result.output


def test_a_bad_url_is_refused_naming_the_option(tmp_path: Path) -> None:
    result = _agent(tmp_path, "--url", "file:///tmp/x")
    assert result.exit_code == 2 and "--url" in result.output


@pytest.mark.parametrize("how", ["option", "environment"])
def test_url_makes_the_agent_use_the_edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    fake = FakeServer([deployment_entry("d1", config="#!/bin/sh\necho ran\n", aware=True)])
    made: list[str] = []

    def link(url: str, timeout: float) -> FakeServer:
        made.append(url)
        return fake

    monkeypatch.setattr(http_link, "HttpServerLink", link)
    if how == "option":
        result = _agent(tmp_path, "--url", URL)
    else:
        result = _agent(tmp_path, env={"CONV_TASKS_AGENT_URL": URL})
    assert result.exit_code == 0, result.output
    assert made == [URL]
    assert fake.statuses() == [("d1", "IN_PROGRESS"), ("d1", "COMPLETE")]
