"""One stack that changes real things of three kinds (issue 21, "Done when"): a PostgreSQL
role and a database it owns (a private cluster with password authentication), an HTTP object
whose body names the database (json-server, behind a bearer token), and a Celery task of
another service that receives the HTTP object's id (its own workers on a password-protected
Redis). Created; updated in place (the role's password, the HTTP body); deleted, leaving
nothing behind in PostgreSQL, in the REST server or in the service's records. No secret is
ever shown.
"""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from celery_task_world import ServiceWorld
from postgresql_world import PasswordPostgres, password_postgres
from private_services import PrivateRedis, celery_app, fresh_database, wait_for_workers
from rest_server import JsonServer

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client

pytestmark = pytest.mark.broker(
    "redis",
    reason="the cluster runs on private Redis servers of its own, whatever the run's broker",
)


@dataclass
class World:
    postgres: PasswordPostgres
    rest: JsonServer
    service: ServiceWorld
    client: Client
    processes: CeleryProcesses
    token: str

    def logs(self) -> str:
        return "\n".join(
            p.read_text(errors="replace") for p in sorted(self.processes.log_dir.glob("*.log"))
        )


def _connections(
    world_root: Path,
    postgres: PasswordPostgres,
    rest: JsonServer,
    token: str,
    service: ServiceWorld,
) -> Path:
    pg_secret = world_root / "pg.secret"
    pg_secret.write_text(postgres.password + "\n")
    rest_secret = world_root / "rest.secret"
    rest_secret.write_text(token + "\n")
    for secret in (pg_secret, rest_secret):
        secret.chmod(0o600)
    body = {
        "default": {
            "tenant-db": {
                "kind": "postgresql",
                "url": postgres.tcp_url(),
                "password_file": str(pg_secret),
            },
            "projects-api": {
                "kind": "http",
                "base_url": rest.base_url,
                "bearer_token_file": str(rest_secret),
            },
            "records": {
                "kind": "celery",
                "broker_url": service.redis.url(0, password=False),
                "result_backend": service.redis.url(1, password=False),
                "password_file": str(service.redis.secret_file),
            },
        }
    }
    path = world_root / "connections.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[World]:
    token = f"tok-{secrets.token_hex(16)}"
    own = PrivateRedis()
    own.start()
    rest = JsonServer(["projects"], token=token)
    service: ServiceWorld | None = None
    processes: CeleryProcesses | None = None
    try:
        rest.start()
        service = ServiceWorld.start(tmp_path / "service")
        with password_postgres() as postgres:
            env = {
                "CONV_TASKS_DATABASE_URL": fresh_database(database_url, "realworld"),
                "CONV_TASKS_BROKER_URL": own.url(0),
                "CONV_TASKS_REDIS_URL": own.url(1),
                "CONV_TASKS_RESULT_BACKEND": own.url(2),
                "CONV_TASKS_REDIS_PREFIX": f"real-{uuid.uuid4().hex[:6]}",
                "CONV_TASKS_CONNECTIONS": str(
                    _connections(tmp_path, postgres, rest, token, service)
                ),
            }
            processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
            app = celery_app(env)
            processes.start_worker("w1")
            processes.start_worker("w2")
            wait_for_workers(app, {processes.hostname("w1"), processes.hostname("w2")})
            client = Client(app, tenant="acme", timeout=30)
            yield World(postgres, rest, service, client, processes, token)
    finally:
        if processes is not None:
            processes.stop_all(timeout=10)
        if service is not None:
            service.stop()
        rest.stop()
        own.stop()


def _template(suffix: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "app_password": {"type": "string", "hidden": True},
            "plan": {"type": "string"},
        },
        "resources": {
            "role": {
                "type": "ConvTasks::PostgreSQL::Role",
                "properties": {
                    "connection": "tenant-db",
                    "name": f"app_{suffix}",
                    "password": {"get_param": "app_password"},
                },
            },
            "db": {
                "type": "ConvTasks::PostgreSQL::Database",
                "properties": {
                    "connection": "tenant-db",
                    "name": f"tenant_{suffix}",
                    "owner": {"get_resource": "role"},
                },
            },
            "project": {
                "type": "ConvTasks::HTTP::Resource",
                "properties": {
                    "connection": "projects-api",
                    "url": "projects",
                    "body": {
                        "database": {"get_attr": ["db", "name"]},
                        "plan": {"get_param": "plan"},
                    },
                },
            },
            "onboarding": {
                "type": "ConvTasks::Celery::Task",
                "properties": {
                    "connection": "records",
                    "create": {
                        "task": "svc.records.create",
                        "queue": "svc.records",
                        "kwargs": {"name": {"get_attr": ["project", "id"]}},
                    },
                    "delete": {"task": "svc.records.delete", "queue": "svc.records", "kwargs": {}},
                },
            },
        },
    }


def _physical(client: Client, stack_id: str) -> dict[str, str]:
    return {r["name"]: r["physical_id"] for r in client.resources(stack_id)}


def test_a_stack_of_real_resources_is_made_changed_in_place_and_deleted(world: World) -> None:
    client, postgres, rest, service = world.client, world.postgres, world.rest, world.service
    suffix = uuid.uuid4().hex[:8]
    role, database = f"app_{suffix}", f"tenant_{suffix}"
    first, second = f"first-{uuid.uuid4().hex}", f"second-{uuid.uuid4().hex}"

    stack_id = client.create(
        "tenant-acme", _template(suffix), {"app_password": first, "plan": "small"}
    )["stack_id"]
    final = client.wait(stack_id, timeout=120, interval=0.3)
    assert final["status"] == "CREATE_COMPLETE", final
    assert postgres.databases()[database][0] == role
    assert postgres.can_log_in(role, first, database)
    [project] = rest.objects("projects")
    assert {k: v for k, v in project.items() if k != "id"} == {
        "database": database,
        "plan": "small",
    }
    [record] = service.records_by(stack_id)
    assert record["name"] == project["id"]  # the task received the HTTP object's id
    made = _physical(client, stack_id)

    # The role's password and the HTTP body change, in place: the same role, database,
    # object and record; the task is not called again (its input did not change).
    client.update(stack_id, _template(suffix), {"app_password": second, "plan": "large"})
    final = client.wait(stack_id, timeout=120, interval=0.3)
    assert final["status"] == "UPDATE_COMPLETE", final
    assert _physical(client, stack_id) == made
    assert postgres.can_log_in(role, second, database)
    assert not postgres.can_log_in(role, first, database)
    assert rest.objects("projects") == [
        {"id": project["id"], "database": database, "plan": "large"}
    ]
    assert service.records_by(stack_id) == [record]
    assert len(service.calls("svc.records.create", key_prefix=stack_id)) == 1

    shown = json.dumps(
        [client.get(stack_id), client.events(stack_id), client.resources(stack_id)]
        + [client.resource(stack_id, name) for name in made]
    )
    for secret in (first, second, world.token, postgres.password, service.redis.password):
        assert secret not in shown, "a secret is shown"
        assert secret not in world.logs(), "a secret is in a worker's log"

    client.delete(stack_id)
    final = client.wait(stack_id, timeout=120, interval=0.3)
    assert final["status"] == "DELETE_COMPLETE", final
    assert role not in postgres.roles() and database not in postgres.databases()
    assert rest.objects("projects") == []
    assert service.records_by(stack_id) == []
