"""`conv-tasks` with one of the services it needs stopped (issue 20): the broker, the result
store, the SyncPoint Redis or PostgreSQL. Each ends in exactly one line on stderr naming the
service and its URL with the password masked, no traceback, and exit code 4.

Every service here is a private server the test starts and stops (tests/chaos/
private_services.py), with a password in its URL. The CLI gives up on the broker or the result
store in time to end within min(--timeout, REACH_SECONDS) seconds (conv_tasks/cli/context.py); the
SyncPoint Redis and PostgreSQL only the workers talk to, and a worker that cannot reach one
answers `unavailable`, which the CLI shows the same way. `subprocess.run`'s timeout is only
a generous ceiling: the bound asserted is the setting, by the command having ended with its
answer rather than with "no answer" (exit 3) or a kill.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import run, tenant, test_resource, write_template

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "chaos"))

from private_services import (
    PrivatePostgres,
    PrivateRedis,
    celery_app,
    fresh_database,
    wait_for_workers,
)

from conv_tasks.celery_processes import CeleryProcesses

PASSWORD = f"pw-{uuid.uuid4().hex[:10]}"
# --timeout for requests the CLI itself cannot deliver: it gives up on the broker or the result
# store in time to end within min(TIMEOUT, REACH_SECONDS) = 5 s (conv_tasks/cli/context.py);
# CEILING, far above, only stops a process that hangs.
TIMEOUT = 5
# --timeout for requests a worker answers `unavailable`: a worker that cannot reach Redis
# gives up after redis-py's three retries with backoff (7 s at most), well within it.
WORKER_TIMEOUT = 30
CEILING = 90


def _masked(url: str) -> str:
    return url.replace(f":{PASSWORD}@", ":**@")


def _assert_one_line(done: subprocess.CompletedProcess[str], service: str, url: str) -> str:
    everything = done.stdout + done.stderr
    assert done.returncode == 4, everything
    lines = done.stderr.splitlines()
    assert len(lines) == 1, everything
    [line] = lines
    assert line.startswith("ERROR: ") and f"cannot reach {service} at {_masked(url)} " in line
    assert PASSWORD in url and PASSWORD not in everything
    assert "Traceback" not in everything
    return line


def _run(
    who: str, *args: str, timeout: int = TIMEOUT, **env: str
) -> subprocess.CompletedProcess[str]:
    return run(who, "--timeout", str(timeout), *args, timeout=CEILING, **env)


@pytest.fixture
def redis_servers() -> Iterator[list[PrivateRedis]]:
    """Private Redis servers a test starts by asking for them; all stopped after it."""
    servers: list[PrivateRedis] = []
    yield servers
    for server in servers:
        server.stop()


def _started(servers: list[PrivateRedis]) -> PrivateRedis:
    server = PrivateRedis(password=PASSWORD)
    server.start()
    servers.append(server)
    return server


@pytest.mark.parametrize("scheme", ["redis", "amqp"])
def test_broker_down(redis_servers: list[PrivateRedis], scheme: str) -> None:
    broker, results = _started(redis_servers), _started(redis_servers)
    broker.stop()
    # On amqp://, the same stopped port: no RabbitMQ of the test's own can be stopped, and
    # nothing listens there any more.
    url = (
        broker.url(0) if scheme == "redis" else f"amqp://guest:{PASSWORD}@127.0.0.1:{broker.port}//"
    )
    done = _run(
        tenant(),
        "stack",
        "list",
        CONV_TASKS_BROKER_URL=url,
        CONV_TASKS_RESULT_BACKEND=results.url(2),
    )
    assert "CONV_TASKS_BROKER_URL" in _assert_one_line(done, "the broker", url)


def test_result_store_down(redis_servers: list[PrivateRedis]) -> None:
    broker, results = _started(redis_servers), _started(redis_servers)
    results.stop()
    done = _run(
        tenant(),
        "stack",
        "list",
        CONV_TASKS_BROKER_URL=broker.url(0),
        CONV_TASKS_RESULT_BACKEND=results.url(2),
    )
    line = _assert_one_line(done, "the result store", results.url(2))
    assert "CONV_TASKS_RESULT_BACKEND" in line


def test_the_one_redis_down(redis_servers: list[PrivateRedis], tmp_path: Path) -> None:
    """The issue's case: broker, results and SyncPoints on one Redis (the default layout),
    which is down. Celery tries the result store first, and the line names it."""
    server = _started(redis_servers)
    server.stop()
    path = write_template(tmp_path / "t.json", {"a": test_resource("1")})
    for args in (("stack", "list"), ("stack", "create", "web", "-t", path, "--wait")):
        done = _run(
            tenant(),
            *args,
            CONV_TASKS_BROKER_URL=server.url(0),
            CONV_TASKS_REDIS_URL=server.url(1),
            CONV_TASKS_RESULT_BACKEND="",
        )
        _assert_one_line(done, "the result store", server.url(1))


def _workers(tmp_path: Path, env: dict[str, str]) -> CeleryProcesses:
    """One worker of the private cluster, answering."""
    processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
    processes.start_worker("w1", concurrency=1)
    app = celery_app(env)
    try:
        wait_for_workers(app, {processes.hostname("w1")})
    finally:
        app.pool.force_close_all()
    return processes


def _broker(redis_server: PrivateRedis, broker_url: str, request: pytest.FixtureRequest) -> str:
    """The private cluster's broker: on the run's broker kind, as the chaos tests do."""
    if broker_url.startswith("redis"):
        return redis_server.url(0)
    return str(request.getfixturevalue("private_rabbitmq_url"))


def test_syncpoint_redis_down(
    redis_servers: list[PrivateRedis],
    database_url: str,
    broker_url: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    messages, syncpoints = _started(redis_servers), _started(redis_servers)
    env = {
        "CONV_TASKS_DATABASE_URL": fresh_database(database_url, "unreach_redis"),
        "CONV_TASKS_BROKER_URL": _broker(messages, broker_url, request),
        "CONV_TASKS_RESULT_BACKEND": messages.url(2),
        "CONV_TASKS_REDIS_URL": syncpoints.url(1),
        "CONV_TASKS_REDIS_PREFIX": f"unreach-{uuid.uuid4().hex[:6]}",
    }
    processes = _workers(tmp_path, env)
    who = tenant()
    path = write_template(tmp_path / "t.json", {"a": test_resource("1")})
    # The CLI's own CONV_TASKS_REDIS_URL stays the session's: the URL shown is the worker's.
    cli = {k: env[k] for k in ("CONV_TASKS_BROKER_URL", "CONV_TASKS_RESULT_BACKEND")}
    try:
        first = _run(who, "stack", "create", "before", "-t", path, "--wait", **cli)
        assert first.returncode == 0, first.stdout + first.stderr
        syncpoints.stop()
        done = _run(who, "stack", "create", "after", "-t", path, timeout=WORKER_TIMEOUT, **cli)
        line = _assert_one_line(done, "the SyncPoint Redis", env["CONV_TASKS_REDIS_URL"])
        assert line.startswith("ERROR: a worker cannot reach") and "CONV_TASKS_REDIS_URL" in line
        # The SyncPoints come first, in the create's transaction: nothing was written.
        shown = _run(who, "stack", "show", "after", timeout=WORKER_TIMEOUT, **cli)
        assert shown.returncode == 1 and "not found" in shown.stderr.lower(), shown.stderr
    finally:
        processes.stop_all(timeout=10)


def test_postgresql_down(
    redis_servers: list[PrivateRedis],
    broker_url: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    from conv_tasks.db.migrate import upgrade

    messages = _started(redis_servers)
    postgres = PrivatePostgres()
    try:
        postgres.init()
        postgres.start()
        postgres.create_database()
        database = postgres.url.replace("postgres@", f"postgres:{PASSWORD}@")  # trust: any
        upgrade(database)
        env = {
            "CONV_TASKS_DATABASE_URL": database,
            "CONV_TASKS_BROKER_URL": _broker(messages, broker_url, request),
            "CONV_TASKS_RESULT_BACKEND": messages.url(2),
            "CONV_TASKS_REDIS_URL": messages.url(1),
            "CONV_TASKS_REDIS_PREFIX": f"unreach-{uuid.uuid4().hex[:6]}",
        }
        processes = _workers(tmp_path, env)
        who = tenant()
        cli = {k: env[k] for k in ("CONV_TASKS_BROKER_URL", "CONV_TASKS_RESULT_BACKEND")}
        try:
            first = _run(who, "stack", "list", **cli)
            assert first.returncode == 0, first.stdout + first.stderr
            postgres.stop()
            for args in (("stack", "list"), ("stack", "show", "web")):
                done = _run(who, *args, timeout=WORKER_TIMEOUT, **cli)
                line = _assert_one_line(done, "PostgreSQL", database)
                assert "point the workers' CONV_TASKS_DATABASE_URL at it" in line
        finally:
            processes.stop_all(timeout=10)
    finally:
        postgres.destroy()
