"""ConvTasks::PostgreSQL::Role and ::Database driven by real conv_tasks workers against a
private PostgreSQL server that asks for a password (tests/postgresql_world.py): a stack of
roles and a database owned by one of them completes, an update converges in place, a rename
replaces, a delete leaves nothing behind, a name held by somebody else is refused and left
alone, and no password shows anywhere: stack show, events, resource show, outputs, previews,
failure reasons, the workers' logs and the server's own log."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from postgresql_world import ADMIN, WEAK, TypesCluster, types_cluster
from sealed_rows import opened
from sqlalchemy import select

from conv_tasks.db.models import Resource
from conv_tasks.db.session import session_scope
from conv_tasks.errors import ConvTasksError

ROLE = "ConvTasks::PostgreSQL::Role"
DATABASE = "ConvTasks::PostgreSQL::Database"


@pytest.fixture
def cluster(
    database_url: str, broker_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[TypesCluster]:
    with types_cluster(database_url, broker_url, tmp_path, request) as running:
        yield running


def _template(suffix: str, *, owner: str = "app", database: str = "tenant") -> dict[str, Any]:
    connection = {"connection": ADMIN}
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"app_password": {"type": "string"}},  # not hidden: the type hides it
        "resources": {
            "app": {
                "type": ROLE,
                "properties": {
                    **connection,
                    "name": f"app_{suffix}",
                    "password": {"get_param": "app_password"},
                },
            },
            "reader_password": {"type": "OS::Heat::RandomString", "properties": {"length": 24}},
            "reader": {
                "type": ROLE,
                "properties": {
                    **connection,
                    "name": f"reader_{suffix}",
                    "password": {"get_attr": ["reader_password", "value"]},
                    "member_of": [{"get_resource": "app"}],
                },
            },
            "db": {
                "type": DATABASE,
                "properties": {
                    **connection,
                    "name": f"{database}_{suffix}",
                    "owner": {"get_resource": owner},
                },
            },
        },
        "outputs": {
            "database": {"value": {"get_attr": ["db", "name"]}},
            "database_oid": {"value": {"get_attr": ["db", "oid"]}},
            "app_oid": {"value": {"get_attr": ["app", "oid"]}},
        },
    }


def _shown(cluster: TypesCluster, stack_id: str, *, skip: tuple[str, ...] = ()) -> str:
    """Everything a user can read about the stack, as text."""
    client = cluster.client
    shown: list[Any] = [client.get(stack_id), client.events(stack_id), client.template(stack_id)]
    shown.append(client.outputs(stack_id))
    for resource in client.resources(stack_id):
        if resource["name"] not in skip:
            shown.append(client.resource(stack_id, resource["name"]))
    return json.dumps(shown)


def _kept_value(cluster: TypesCluster, stack_id: str, name: str) -> str:
    with session_scope(cluster.database_url) as session:
        rows = session.scalars(
            select(Resource).where(Resource.stack_id == stack_id, Resource.name == name)
        )
        [value] = [opened("resource", "plugin_data", row.plugin_data)["value"] for row in rows]
    return str(value)


def _assert_nowhere(secrets: list[str], *texts: str) -> None:
    for secret in secrets:
        for text in texts:
            assert secret not in text, f"a password ({secret[:6]}...) is shown"


def test_a_role_and_its_database_are_made_changed_in_place_replaced_and_deleted(
    cluster: TypesCluster,
) -> None:
    client, server = cluster.client, cluster.server
    suffix = uuid.uuid4().hex[:8]
    app, reader = f"app_{suffix}", f"reader_{suffix}"
    first, second = f"first-{uuid.uuid4().hex}", f"second-{uuid.uuid4().hex}"

    stack_id = client.create("tenant", _template(suffix), {"app_password": first})["stack_id"]
    final = cluster.wait_status(stack_id)
    assert final["status"] == "CREATE_COMPLETE", final
    database = f"tenant_{suffix}"
    roles, databases = server.roles(), server.databases()
    assert roles[reader][:2] == (True, [app])
    assert roles[app][2] is not None and roles[app][2].startswith(f"conv_tasks:{stack_id}:")
    assert databases[database][:2] == (app, "UTF8")
    assert server.can_log_in(app, first, database)
    # Read where the engine keeps it: a read through the workers would log it (RandomString's
    # value is no secret to conv_tasks, only to this test).
    generated = _kept_value(cluster, stack_id, "reader_password")
    assert server.can_log_in(reader, generated)
    outputs = {key: o["value"] for key, o in client.outputs(stack_id).items()}
    assert outputs["database"] == database
    assert outputs["database_oid"] == server.database_oid(database)

    # The password and the owner change in place: the same role and the same database.
    changed = _template(suffix, owner="reader")
    preview = client.preview(stack_id, changed, {"app_password": second})
    actions = {entry["name"]: entry["action"] for entry in preview["resources"]}
    assert actions == {
        "app": "update",
        "reader_password": "unchanged",
        "reader": "unchanged",
        "db": "update",
    }, preview
    client.update(stack_id, changed, {"app_password": second})
    final = cluster.wait_status(stack_id)
    assert final["status"] == "UPDATE_COMPLETE", final
    assert server.can_log_in(app, second, database)
    assert not server.can_log_in(app, first, database)
    assert server.databases()[database][0] == reader
    after = {key: o["value"] for key, o in client.outputs(stack_id).items()}
    assert after["database_oid"] == outputs["database_oid"]
    assert after["app_oid"] == outputs["app_oid"]
    unchanged = client.preview(stack_id, changed, {"app_password": second})
    assert (
        unchanged["summary"] == "0 to create, 0 to update, 0 to replace, 0 to delete, 4 unchanged"
    )
    assert all(entry["reality"] is None for entry in unchanged["resources"]), unchanged
    client.check(stack_id)
    assert cluster.wait_status(stack_id)["status"] == "CHECK_COMPLETE"

    # A new name replaces the database: a new one is made, the old one dropped.
    renamed = _template(suffix, owner="reader", database="renamed")
    client.update(stack_id, renamed, {"app_password": second})
    final = cluster.wait_status(stack_id)
    assert final["status"] == "UPDATE_COMPLETE", final
    databases = server.databases()
    assert database not in databases and f"renamed_{suffix}" in databases
    assert databases[f"renamed_{suffix}"][0] == reader

    secrets = [first, second, generated, server.password]
    _assert_nowhere(secrets, _shown(cluster, stack_id, skip=("reader_password",)))
    _assert_nowhere(secrets, json.dumps(preview), json.dumps(unchanged))
    _assert_nowhere(secrets, cluster.worker_logs(), server.server_log())
    for role in ("app", "reader"):
        assert client.resource(stack_id, role)["properties"]["password"] == "******"

    client.delete(stack_id)
    final = cluster.wait_status(stack_id)
    assert final["status"] == "DELETE_COMPLETE", final
    assert not server.roles() and not server.databases()  # nothing left, staging included
    _assert_nowhere(secrets, cluster.worker_logs(), server.server_log())


def test_what_cannot_be_made_fails_in_one_line_and_leaves_others_alone(
    cluster: TypesCluster,
) -> None:
    client, server = cluster.client, cluster.server
    taken = f"theirs_{uuid.uuid4().hex[:8]}"
    with server.local() as conn:
        conn.execute(f'CREATE ROLE "{taken}"')
        conn.execute(f'CREATE DATABASE "{taken}"')
    password = f"never-{uuid.uuid4().hex}"

    def role(name: str, connection: str = ADMIN, **more: Any) -> dict[str, Any]:
        properties = {"connection": connection, "name": name, "password": password, **more}
        return {"type": ROLE, "properties": properties}

    cases = {
        "taken": ({"r": role(taken)}, f"Resource r: role '{taken}' already exists and was not"),
        "taken-db": (
            {"d": {"type": DATABASE, "properties": {"connection": ADMIN, "name": taken}}},
            f"Resource d: database '{taken}' already exists and was not made",
        ),
        "no-group": (
            {"r": role(f"lone_{taken}", member_of=["no_such_group"])},
            'role "no_such_group" does not exist',
        ),
        "weak": (
            {"r": role(f"weak_{taken}", connection=WEAK)},
            "permission denied to create role",
        ),
    }
    for name, (resources, reason) in cases.items():
        template = {"heat_template_version": "2018-08-31", "resources": resources}
        stack_id = client.create(name, template, disable_rollback=True)["stack_id"]
        final = cluster.wait_status(stack_id)
        assert final["status"] == "CREATE_FAILED", final
        [resource] = client.resources(stack_id)
        assert reason in resource["status_reason"], resource
        assert "\n" not in resource["status_reason"]
        _assert_nowhere([password, server.password], _shown(cluster, stack_id))
        client.delete(stack_id)
        assert cluster.wait_status(stack_id)["status"] == "DELETE_COMPLETE"
    assert taken in server.roles() and taken in server.databases()  # never dropped
    assert set(server.roles()) == {taken} and set(server.databases()) == {taken}

    unknown = {"r": role("x", connection="nowhere")}
    with pytest.raises(ConvTasksError) as refused:
        client.create("unknown", {"heat_template_version": "2018-08-31", "resources": unknown})
    assert "resources.r.properties.connection" in str(refused.value)
    assert "'nowhere'" in str(refused.value)
    _assert_nowhere([password, server.password], cluster.worker_logs(), server.server_log())
