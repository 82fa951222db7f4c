"""Secrets are read from where the connection says, only when a client is made, and a missing
one fails with a sentence naming where it looked, never a value; a client never tries again
inside a step (the engine does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conv_tasks.connections import Connections, parse_connections
from conv_tasks.connections.clients import CLIENT_MAKERS, read_secret, with_password
from conv_tasks.connections.specs import CELERY
from conv_tasks.provider_errors import Fatal
from conv_tasks.resources.builtin.celery_task import remote
from conv_tasks.resources.builtin.celery_task.call import TaskCall
from conv_tasks.testing import FaultPlan, PrivateRedis, TcpFaultProxy, connections_file


def test_a_secret_comes_from_its_file_or_its_variable(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("s3cr3t\n")
    config = parse_connections(
        f"default: {{a: {{kind: http, base_url: 'https://x', bearer_token_file: '{secret}'}},"
        " b: {kind: http, base_url: 'https://x', bearer_token_env: TOKEN}}"
    )
    assert read_secret(config.lookup(None, "a"), {}) == "s3cr3t"
    assert read_secret(config.lookup(None, "b"), {"TOKEN": "t0k"}) == "t0k"
    with pytest.raises(Fatal) as missing:
        read_secret(config.lookup(None, "b"), {})
    assert "TOKEN" in str(missing.value) and "is not set" in str(missing.value)
    secret.unlink()
    with pytest.raises(Fatal, match="cannot be read"):
        read_secret(config.lookup(None, "a"), {})


def test_an_http_client_carries_the_token_and_the_handle_masks_it(tmp_path: Path) -> None:
    config = parse_connections(
        "default: {api: {kind: http, base_url: 'https://api.example/v1', "
        "bearer_token_env: TOKEN, headers: {X-Team: ops}}}"
    )
    connections = Connections(config, environ={"TOKEN": "t0k-3n"})
    handle = connections.handle("t", "api", "http", "r")
    assert handle.secrets() == ()  # nothing read yet
    client = handle.client
    assert client.headers["Authorization"] == "Bearer t0k-3n"
    assert client.headers["X-Team"] == "ops"
    assert str(client.base_url) == "https://api.example/v1/"
    assert handle.client is client  # cached for the process
    assert handle.secrets() == ("t0k-3n",)
    connections.close()


def test_a_handle_to_a_connection_the_tenant_lacks_fails_when_used() -> None:
    connections = Connections(parse_connections("default: {}"))
    handle = connections.handle("t", "nope", "http", "web")
    with pytest.raises(Fatal, match="Resource web: property connection names connection 'nope'"):
        _ = handle.client
    assert handle.admit("token", starting=True) == 0.0


def test_a_password_goes_into_a_url_quoted() -> None:
    assert with_password("redis://:@h:6379/0", "p@ss/word") == "redis://:p%40ss%2Fword@h:6379/0"
    assert with_password("amqp://user@h/vhost", "x") == "amqp://user:x@h/vhost"
    assert with_password("redis://h/0", None) == "redis://h/0"


def test_a_celery_connection_tries_its_broker_once_per_step() -> None:
    # kombu's own reconnect loop (2 s, then 4 s, for as long as the connect timeout) would
    # hold a step past its budget: a broker that refuses is one attempt, then Transient.
    server = PrivateRedis()
    server.start()
    proxy = TcpFaultProxy(server.port, FaultPlan(throttled=1.0, unavailable=0.0)).start()
    try:
        spec = parse_connections(
            connections_file(
                {"svc": {"kind": "celery", "broker_url": f"redis://127.0.0.1:{proxy.port}/0"}}
            )
        ).lookup("t", "svc")
        assert spec is not None
        app = CLIENT_MAKERS[CELERY](spec, None)
        with proxy.faulty(), pytest.raises(remote.Unreachable, match="its broker cannot be"):
            remote.send(app, TaskCall.of({"task": "svc.thing", "queue": "svc"}), "task-1", {})
        assert proxy.faults_dealt() == 1
    finally:
        proxy.stop()
        server.stop()
