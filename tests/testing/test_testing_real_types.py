"""The conformance kit applied to the types that change real things (issue 21): PostgreSQL
databases and roles on a private cluster with a password, HTTP objects on json-server behind
a bearer token, and another service's Celery tasks on its own password-protected Redis."""

from __future__ import annotations

import secrets
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conv_tasks.testing import (
    CheckedStack,
    Conformance,
    PrivatePostgres,
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


def test_a_postgresql_database_conforms(
    conformance: Conformance, private_postgres: PrivatePostgres
) -> None:
    case = TypeCase(
        type_name="ConvTasks::PostgreSQL::Database",
        properties={"connection": "tenant-db", "name": "kit_db"},
        update_in_place={"owner": "postgres"},
        update_replace={"name": "kit_db_two"},
        connections=connections_file({"tenant-db": private_postgres.connection()}),
    )
    report = conformance.check(case)
    assert report.not_applicable == [], report.render()


def test_a_postgresql_role_conforms(
    conformance: Conformance, private_postgres: PrivatePostgres
) -> None:
    case = TypeCase(
        type_name="ConvTasks::PostgreSQL::Role",
        properties={"connection": "tenant-db", "name": "kit_role", "password": "first-pw-1"},
        update_in_place={"password": "second-pw-2", "login": False},
        update_replace={"name": "kit_role_two"},
        connections=connections_file({"tenant-db": private_postgres.connection()}),
    )
    report = conformance.check(case)
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


def test_an_http_resource_conforms(conformance: Conformance, rest: tuple[JsonServer, Path]) -> None:
    server, secret = rest

    def objects(stack: CheckedStack) -> int:
        return len(server.objects("things")) + len(server.objects("others"))

    http = {"kind": "http", "base_url": server.base_url, "bearer_token_file": str(secret)}
    case = TypeCase(
        type_name="ConvTasks::HTTP::Resource",
        properties={"connection": "rest", "url": "things", "body": {"name": "kit", "size": 1}},
        update_in_place={"body": {"name": "kit", "size": 2}},
        update_replace={"url": "others"},
        connections=connections_file({"rest": http}),
        count_objects=objects,
    )
    report = conformance.check(case)
    assert {r.check for r in report.not_applicable} == NO_INTERRUPT, report.render()


@pytest.fixture(scope="module")
def service() -> Iterator[ServiceWorld]:
    world = ServiceWorld.start(Path(tempfile.mkdtemp(prefix="conv-tasks-kit-service-")))
    try:
        yield world
    finally:
        world.stop()


def test_a_celery_task_conforms(conformance: Conformance, service: ServiceWorld) -> None:
    redis = service.redis
    records = {
        "kind": "celery",
        "broker_url": redis.url(0, password=False),
        "result_backend": redis.url(1, password=False),
        "password_file": str(redis.secret_file),
    }

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
    )
    report = conformance.check(case)
    assert {r.check for r in report.not_applicable} == {
        "observe after create",
        "observe after delete",
    }, report.render()
