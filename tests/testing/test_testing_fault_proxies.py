"""The kit's fault injectors in front of real services: the HTTP proxy before json-server
answers 429 with Retry-After and 503 as its plan says (and the service never sees those
requests), the TCP proxy before a Redis server closes or cuts connections; both pass
everything through untouched while their faults are off."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from conv_tasks.testing import (
    FaultPlan,
    HttpFaultProxy,
    PrivateRedis,
    TcpFaultProxy,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration" / "http_resource"))

from rest_server import JsonServer


@pytest.fixture(scope="module")
def json_server() -> Iterator[JsonServer]:
    server = JsonServer(["things"])
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def http_proxy(json_server: JsonServer) -> Iterator[HttpFaultProxy]:
    proxy = HttpFaultProxy(json_server.base_url, FaultPlan(throttled=0.3, unavailable=0.2))
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def test_the_http_proxy_passes_everything_through_while_its_faults_are_off(
    http_proxy: HttpFaultProxy, json_server: JsonServer
) -> None:
    with httpx.Client(base_url=http_proxy.url) as client:
        for i in range(20):
            made = client.post("/things", json={"id": f"off-{i}", "n": i})
            assert made.status_code == 201, made.text
        assert client.get("/things/off-3").json() == {"id": "off-3", "n": 3}
        assert client.put("/things/off-3", json={"n": 33}).json() == {"id": "off-3", "n": 33}
        assert client.delete("/things/off-3").status_code == 200
    assert len([o for o in json_server.objects("things") if o["id"].startswith("off-")]) == 19
    assert http_proxy.faults_dealt() == 0


def test_the_http_proxy_throttles_and_fails_as_its_seeded_plan_says(
    http_proxy: HttpFaultProxy, json_server: JsonServer
) -> None:
    def statuses(prefix: str) -> list[int]:
        with http_proxy.faulty(), httpx.Client(base_url=http_proxy.url) as client:
            answers = [client.post("/things", json={"id": f"{prefix}-{i}"}) for i in range(40)]
        for answer in answers:
            if answer.status_code == 429:
                assert answer.headers["Retry-After"] == "1"
            if answer.status_code in (429, 503):
                assert "fault proxy" in answer.json()["message"]
        return [answer.status_code for answer in answers]

    first, second = statuses("a"), statuses("b")
    assert first == second  # the same seed, the same answers
    assert {201, 429, 503} == set(first)
    stored = {o["id"] for o in json_server.objects("things")}
    # What the proxy refused never reached the service; the rest did.
    assert {f"a-{i}" for i, status in enumerate(first) if status == 201} <= stored
    assert not {f"a-{i}" for i, status in enumerate(first) if status != 201} & stored
    assert http_proxy.faults_dealt() == 2 * sum(status != 201 for status in first)


@pytest.fixture(scope="module")
def redis_server() -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _client(port: int) -> redis.Redis:
    return redis.Redis(port=port, socket_timeout=5, retry=None)  # one try: each fault seen


def test_the_tcp_proxy_carries_a_protocol_untouched_while_its_faults_are_off(
    redis_server: PrivateRedis,
) -> None:
    proxy = TcpFaultProxy(redis_server.port, FaultPlan(throttled=1.0, unavailable=0.0)).start()
    try:
        client = _client(proxy.port)
        client.set("through", "the proxy")
        assert client.get("through") == b"the proxy"
        assert redis_server.client(0).get("through") == b"the proxy"
        client.close()
    finally:
        proxy.stop()


def test_a_throttled_connection_is_closed_as_it_is_accepted(redis_server: PrivateRedis) -> None:
    proxy = TcpFaultProxy(redis_server.port, FaultPlan(throttled=1.0, unavailable=0.0)).start()
    try:
        with proxy.faulty(), pytest.raises(redis.exceptions.ConnectionError):
            _client(proxy.port).ping()
        assert proxy.faults_dealt() == 1
    finally:
        proxy.stop()


def test_an_unavailable_chunk_cuts_the_connection_before_the_server_sees_it(
    redis_server: PrivateRedis,
) -> None:
    proxy = TcpFaultProxy(redis_server.port, FaultPlan(throttled=0.0, unavailable=1.0)).start()
    try:
        client = _client(proxy.port)
        client.ping()  # connected while the faults are off
        with proxy.faulty(), pytest.raises(redis.exceptions.ConnectionError):
            client.set("cut", "never stored")
        assert redis_server.client(0).get("cut") is None
        client.close()
    finally:
        proxy.stop()


HOLDS_THE_INTERPRETER = """
import subprocess
import sys
import psycopg
from sqlalchemy.engine import make_url
from conv_tasks.testing import FaultPlan, TcpFaultProxy, TestServices

server = make_url(TestServices.from_env().database_url)
proxy = TcpFaultProxy(server.port or 5432, FaultPlan(), host=server.host or "127.0.0.1").start()
with psycopg.connect(host="127.0.0.1", port=proxy.port, user=server.username or "postgres",
                     dbname="postgres", autocommit=True) as conn:
    # libpq asks the server which algorithm to use and waits for it, the interpreter held.
    print(conn.pgconn.encrypt_password(b"a-password", b"a-role", None)[:14].decode())
proxy.stop()
"""


def test_a_client_that_holds_the_interpreter_while_it_waits_is_still_answered() -> None:
    # A proxy in a thread of the client's process would wait for the interpreter forever.
    done = subprocess.run(
        [sys.executable, "-c", HOLDS_THE_INTERPRETER],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("SCRAM-SHA-256$", "md5")), done.stdout
