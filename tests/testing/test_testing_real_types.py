"""The conformance kit applied to the types that change real things (issue 21): PostgreSQL
databases and roles on a private cluster with a password, HTTP objects on json-server behind
a bearer token, and another service's Celery tasks on its own password-protected Redis.

Each passes again with its service's faults on (issue 31): json-server behind an
HttpFaultProxy (429 with Retry-After, 503), PostgreSQL and the service's Redis behind a
TcpFaultProxy (connections closed as they come, or cut in the middle), on FaultPlan's
defaults. Names the services keep unique carry UNIQUE, so no two checks' stacks collide.
"""

from __future__ import annotations

import secrets
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conv_tasks.testing import (
    UNIQUE,
    CheckedStack,
    Conformance,
    FaultPlan,
    HttpFaultProxy,
    PrivatePostgres,
    TcpFaultProxy,
    TypeCase,
    connections_file,
)

INTEGRATION = Path(__file__).resolve().parents[1] / "integration"
for folder in (
    INTEGRATION / "http_resource",
    INTEGRATION / "celery_task",
    INTEGRATION.parent / "chaos",
):
    sys.path.insert(0, str(folder))

from celery_task_world import ServiceWorld  # noqa: E402 - after the path
from rest_server import JsonServer  # noqa: E402 - after the path

NO_INTERRUPT = {"interrupt"}  # a create that ends in its first step has nothing to stop
# Each test runs once on the service as it is, once with its faults on.
WEATHER = pytest.mark.parametrize("faults", [False, True], ids=["calm", "service-faults"])


@pytest.fixture(scope="module")
def flaky_postgres(private_postgres: PrivatePostgres) -> Iterator[TcpFaultProxy]:
    proxy = TcpFaultProxy(private_postgres.port, FaultPlan()).start()
    try:
        yield proxy
    finally:
        proxy.stop()


def postgresql_case(
    postgres: PrivatePostgres, proxy: TcpFaultProxy, faults: bool, **given: object
) -> TypeCase:
    """A case acting through `tenant-db`: straight to the server, or through the proxy whose
    faults the kit turns on."""
    connection = postgres.connection()
    if faults:
        connection["url"] = f"postgresql://postgres@127.0.0.1:{proxy.port}/postgres"
    return TypeCase(
        connections=connections_file({"tenant-db": connection}),
        service_faults=lambda _cluster: proxy.faulty(),
        **given,  # type: ignore[arg-type]
    )


@WEATHER
def test_a_postgresql_database_conforms(
    conformance: Conformance,
    private_postgres: PrivatePostgres,
    flaky_postgres: TcpFaultProxy,
    faults: bool,
) -> None:
    case = postgresql_case(
        private_postgres,
        flaky_postgres,
        faults,
        type_name="ConvTasks::PostgreSQL::Database",
        properties={"connection": "tenant-db", "name": f"kit_db_{UNIQUE}"},
        update_in_place={"owner": "postgres"},
        update_replace={"name": f"kit_db_two_{UNIQUE}"},
    )
    report = conformance.check(case, service_faults=faults)
    assert report.not_applicable == [], report.render()


@WEATHER
def test_a_postgresql_role_conforms(
    conformance: Conformance,
    private_postgres: PrivatePostgres,
    flaky_postgres: TcpFaultProxy,
    faults: bool,
) -> None:
    case = postgresql_case(
        private_postgres,
        flaky_postgres,
        faults,
        type_name="ConvTasks::PostgreSQL::Role",
        properties={
            "connection": "tenant-db",
            "name": f"kit_role_{UNIQUE}",
            "password": "first-pw-1",
        },
        update_in_place={"password": "second-pw-2", "login": False},
        update_replace={"name": f"kit_role_two_{UNIQUE}"},
    )
    report = conformance.check(case, service_faults=faults)
    assert {r.check for r in report.not_applicable} == NO_INTERRUPT, report.render()


@pytest.fixture(scope="module")
def rest() -> Iterator[tuple[JsonServer, Path]]:
    token = f"tok-{secrets.token_hex(12)}"
    server = JsonServer(["things", "others"], token=token)
    server.start()
    secret = Path(tempfile.mkdtemp(prefix="conv-tasks-kit-http-")) / "token"
    secret.write_text(token + "\n")
    try:
        yield server, secret
    finally:
        server.stop()


@pytest.fixture(scope="module")
def busy_rest(rest: tuple[JsonServer, Path]) -> Iterator[HttpFaultProxy]:
    proxy = HttpFaultProxy(rest[0].base_url, FaultPlan()).start()
    try:
        yield proxy
    finally:
        proxy.stop()


@WEATHER
def test_an_http_resource_conforms(
    conformance: Conformance,
    rest: tuple[JsonServer, Path],
    busy_rest: HttpFaultProxy,
    faults: bool,
) -> None:
    server, secret = rest

    def objects(stack: CheckedStack) -> int:
        return len(server.objects("things")) + len(server.objects("others"))

    base_url = busy_rest.url if faults else server.base_url
    http = {"kind": "http", "base_url": base_url, "bearer_token_file": str(secret)}
    case = TypeCase(
        type_name="ConvTasks::HTTP::Resource",
        properties={
            "connection": "rest",
            "url": "things",
            "body": {"name": f"kit-{UNIQUE}", "size": 1},
        },
        update_in_place={"body": {"name": f"kit-{UNIQUE}", "size": 2}},
        update_replace={"url": "others"},
        connections=connections_file({"rest": http}),
        count_objects=objects,
        service_faults=lambda _cluster: busy_rest.faulty(),
    )
    report = conformance.check(case, service_faults=faults)
    assert {r.check for r in report.not_applicable} == NO_INTERRUPT, report.render()
    assert busy_rest.faults_dealt() > 0 or not faults


@pytest.fixture(scope="module")
def service() -> Iterator[ServiceWorld]:
    world = ServiceWorld.start(Path(tempfile.mkdtemp(prefix="conv-tasks-kit-service-")))
    try:
        yield world
    finally:
        world.stop()


@pytest.fixture(scope="module")
def flaky_redis(service: ServiceWorld) -> Iterator[TcpFaultProxy]:
    proxy = TcpFaultProxy(service.redis.port, FaultPlan()).start()
    try:
        yield proxy
    finally:
        proxy.stop()


@WEATHER
def test_a_celery_task_conforms(
    conformance: Conformance, service: ServiceWorld, flaky_redis: TcpFaultProxy, faults: bool
) -> None:
    redis = service.redis
    records = {
        "kind": "celery",
        "broker_url": redis.url(0, password=False),
        "result_backend": redis.url(1, password=False),
        "password_file": str(redis.secret_file),
    }
    if faults:  # the type reaches the service's Redis through the proxy; its workers do not
        for key, db in (("broker_url", 0), ("result_backend", 1)):
            records[key] = f"redis://127.0.0.1:{flaky_redis.port}/{db}"

    def call(task: str, **kwargs: object) -> dict[str, object]:
        return {"task": task, "queue": "svc.records", "kwargs": kwargs}

    def made(stack: CheckedStack) -> int:
        return len(service.records_by(stack.stack_id))

    case = TypeCase(
        type_name="ConvTasks::Celery::Task",
        properties={
            "connection": "records",
            "create": call("svc.records.create", name="kit"),
            "update": call("svc.records.update", colour="red"),
            "delete": call("svc.records.delete"),
        },
        update_in_place={"update": call("svc.records.update", colour="blue")},
        # Only the create task sees it (the update keeps what the in-place change gave it).
        update_replace={
            "create": call("svc.records.create", name="another"),
            "update": call("svc.records.update", colour="blue"),
        },
        slow_properties={"create": call("svc.records.create", name="kit", delay=3.0)},
        connections=connections_file({"records": records}),
        count_objects=made,
        service_faults=lambda _cluster: flaky_redis.faulty(),
    )
    report = conformance.check(case, service_faults=faults)
    assert {r.check for r in report.not_applicable} == {
        "observe after create",
        "observe after delete",
    }, report.render()
