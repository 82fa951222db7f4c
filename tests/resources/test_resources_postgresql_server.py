"""The PostgreSQL types' actions, called one step at a time as the engine calls them, against
a private PostgreSQL server that asks for a password (tests/postgresql_world.py): exactly
one object per token, what is not ours is refused and left alone, errors become the SDK's,
and no password reaches a message or the server."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgresql_world import ADMIN, WEAK, PasswordPostgres, connections_file, password_postgres

from conv_tasks.connections import Connections, load_connections
from conv_tasks.provider_errors import AlreadyExists, Conflict, Fatal, NotFound, Transient
from conv_tasks.resources import ActionContext, Progress
from conv_tasks.resources.builtin.postgresql import PostgreSQLDatabase, PostgreSQLRole
from conv_tasks.resources.builtin.postgresql import statements as sql
from conv_tasks.resources.builtin.postgresql.ownership import staging_name
from conv_tasks.sdk import CHECK, CREATE, DELETE, UPDATE

STACK = str(uuid.uuid4())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PasswordPostgres]:
    with password_postgres() as running:
        yield running


@pytest.fixture(scope="module")
def connections(server: PasswordPostgres, tmp_path_factory: pytest.TempPathFactory) -> Connections:
    path = connections_file(server, tmp_path_factory.mktemp("secrets"))
    return Connections(load_connections(str(path)))


class Steps:
    """One resource's actions, each run as the engine runs it: start, then poll until done."""

    def __init__(self, connections: Connections, plugin: Any, name: str, connection: str) -> None:
        self.connections, self.plugin, self.name, self.connection = (
            connections,
            plugin,
            name,
            connection,
        )
        self.version = 1

    def ctx(
        self,
        action: str,
        properties: Mapping[str, Any],
        *,
        physical_id: str | None = None,
        data: Mapping[str, Any] | None = None,
        version: int | None = None,
    ) -> ActionContext:
        now = time.time()
        return ActionContext(
            stack_id=STACK,
            resource_name=self.name,
            action=action,
            idempotency_token=f"{STACK}:{version or self.version}:{action}",
            properties={"connection": self.connection, **properties},
            old_properties=None,
            physical_id=physical_id,
            data=dict(data or {}),
            started_at=now,
            now=now,
            sandbox=None,  # type: ignore[arg-type] - these types never reach it
            tenant="acme",
            connection=self.connections.handle("acme", self.connection, "postgresql", self.name),
        )

    def run(self, ctx: ActionContext) -> ActionContext:
        """Start the action and poll it to its end; the context it ends with."""
        action = ctx.action
        starters = {CREATE: self.plugin.create, UPDATE: self.plugin.update}
        checkers = {CREATE: self.plugin.check_create, UPDATE: self.plugin.check_update}
        starters[DELETE] = self.plugin.delete
        checkers[DELETE] = self.plugin.check_delete
        progress: Progress = starters[action](ctx)
        for _ in range(20):
            ctx = replace(
                ctx,
                physical_id=progress.physical_id or ctx.physical_id,
                data={**ctx.data, **progress.data},
            )
            if progress.done:
                return ctx
            progress = checkers[action](ctx)
        raise AssertionError(f"{action} of {self.name} never finished")


def _database(connections: Connections, name: str = "db") -> Steps:
    return Steps(connections, PostgreSQLDatabase(), name, ADMIN)


def _role(connections: Connections, name: str = "app", connection: str = ADMIN) -> Steps:
    return Steps(connections, PostgreSQLRole(), name, connection)


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def test_a_database_is_made_observed_given_away_and_dropped_once(
    server: PasswordPostgres, connections: Connections
) -> None:
    steps, name = _database(connections), _unique("tenant")
    first = steps.ctx(CREATE, {"name": name, "encoding": "UTF8"})
    intent = steps.plugin.create(first)
    assert (intent.done, intent.physical_id) == (False, name)
    assert name not in server.databases()  # the first step only records the intent
    made = steps.run(first)
    assert made.physical_id == name
    owner, encoding, comment = server.databases()[name]
    assert (owner, encoding) == ("postgres", "UTF8")
    assert comment is not None and comment.startswith(f"conv_tasks:{STACK}:1:CREATE ")
    attributes = steps.plugin.attributes(made)
    assert attributes["name"] == name and attributes["oid"] == server.database_oid(name)
    seen = steps.plugin.observe(made)
    assert seen.exists and seen.differences(made.properties) == []

    # The same token again (a step run again): the same database, adopted.
    again = steps.run(replace(first, data=made.data))
    assert again.data["oid"] == made.data["oid"]
    assert [n for n in server.databases() if n.startswith(name)] == [name]

    with server.local() as conn:
        conn.execute(f'CREATE ROLE "{name}_owner"')
    changed = {"name": name, "encoding": "UTF8", "owner": f"{name}_owner"}
    updated = steps.run(steps.ctx(UPDATE, changed, physical_id=name, data=made.data, version=2))
    assert server.databases()[name][0] == f"{name}_owner"
    assert server.database_oid(name) == made.data["oid"]  # in place
    assert steps.plugin.observe(updated).differences(changed) == []
    with server.local() as conn:
        conn.execute(f'ALTER DATABASE "{name}" OWNER TO postgres')  # drift
    assert steps.plugin.observe(updated).differences(changed) == ["owner"]

    # A session stays connected: the delete ends it (WITH (FORCE)).
    held = psycopg.connect(server.tcp_url("postgres", name), password=server.password)
    try:
        gone = steps.ctx(DELETE, changed, physical_id=name, data=updated.data, version=2)
        steps.run(gone)
        assert name not in server.databases()
        assert not steps.plugin.observe(gone).exists
        steps.run(gone)  # deleting twice is fine
    finally:
        held.close()


def test_a_create_cut_off_after_the_staging_database_was_made_keeps_one_database(
    server: PasswordPostgres, connections: Connections
) -> None:
    steps, name = _database(connections), _unique("cut")
    first = steps.ctx(CREATE, {"name": name, "encoding": "SQL_ASCII"})
    # The worker died right after CREATE DATABASE, before the mark and the rename.
    with server.local() as conn:
        conn.execute(sql.create_database(staging_name(first.idempotency_token), None, "SQL_ASCII"))
    made = steps.run(first)
    databases = server.databases()
    assert name in databases and databases[name][1] == "SQL_ASCII"
    assert not [n for n in databases if n.startswith("conv_tasks_staging_")]
    assert made.data["oid"] == server.database_oid(name)


def test_an_interrupted_create_and_a_failed_versions_delete_drop_its_staging_database(
    server: PasswordPostgres, connections: Connections
) -> None:
    steps, name = _database(connections), _unique("stopped")
    first = steps.ctx(CREATE, {"name": name, "encoding": "UTF8"})
    intent = steps.plugin.create(first)
    staging = staging_name(first.idempotency_token)
    with server.local() as conn:
        conn.execute(sql.create_database(staging, None, "UTF8"))
    stopped = replace(first, physical_id=intent.physical_id, data=intent.data)
    steps.plugin.interrupt(stopped)
    assert staging not in server.databases()
    with server.local() as conn:
        conn.execute(sql.create_database(staging, None, "UTF8"))
    steps.run(steps.ctx(DELETE, first.properties, physical_id=name, data=intent.data))
    assert staging not in server.databases() and name not in server.databases()


def test_a_name_somebody_else_holds_is_refused_and_never_dropped(
    server: PasswordPostgres, connections: Connections
) -> None:
    name = _unique("theirs")
    with server.local() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
        conn.execute(f'CREATE ROLE "{name}"')
    database, role = _database(connections), _role(connections)
    with pytest.raises(AlreadyExists) as refused:
        database.run(database.ctx(CREATE, {"name": name, "encoding": "UTF8"}))
    message = str(refused.value)
    assert f"database {name!r} already exists and was not made by this resource" in message
    assert "\n" not in message
    with pytest.raises(AlreadyExists) as refused:
        role.run(role.ctx(CREATE, {"name": name}))
    assert f"role {name!r} already exists and was not made by this resource" in str(refused.value)
    # A clean-up of the failed versions (their physical id is the name) leaves both alone.
    intent = database.plugin.create(database.ctx(CREATE, {"name": name, "encoding": "UTF8"}))
    database.run(database.ctx(DELETE, {"name": name}, physical_id=name, data=intent.data))
    role.run(role.ctx(DELETE, {"name": name}, physical_id=name, data={"mark": "conv_tasks:x"}))
    assert name in server.databases() and name in server.roles()
    assert not database.plugin.observe(database.ctx(CREATE, {}, physical_id=name)).exists


def test_a_replacement_that_keeps_the_name_takes_over_an_earlier_versions_object(
    server: PasswordPostgres, connections: Connections
) -> None:
    name = _unique("kept")
    role = _role(connections)
    old = role.run(role.ctx(CREATE, {"name": name, "login": True}, version=1))
    new = role.run(role.ctx(CREATE, {"name": name, "login": False}, version=2))
    assert server.roles()[name][0] is False and server.roles()[name][2] == new.data["mark"]
    # The old version's clean-up finds the role marked by the new one: it stays.
    role.run(role.ctx(DELETE, {"name": name}, physical_id=name, data=old.data, version=1))
    assert name in server.roles()

    database = _database(connections)
    first = database.run(database.ctx(CREATE, {"name": name, "encoding": "UTF8"}, version=1))
    with pytest.raises(Conflict) as refused:
        database.run(database.ctx(CREATE, {"name": name, "encoding": "SQL_ASCII"}, version=2))
    assert "encoding cannot change in place" in str(refused.value)
    assert server.database_oid(name) == first.data["oid"]
    same = database.run(database.ctx(CREATE, {"name": name, "encoding": "UTF8"}, version=3))
    assert same.data["oid"] == first.data["oid"]  # taken over, not made again


def test_a_role_gets_its_password_login_and_memberships_in_place(
    server: PasswordPostgres, connections: Connections
) -> None:
    group, name = _unique("readers"), _unique("app")
    with server.local() as conn:
        conn.execute(f'CREATE ROLE "{group}"')
    steps = _role(connections)
    first_password, second_password = f"first-{uuid.uuid4().hex}", f"second-{uuid.uuid4().hex}"
    wanted = {"name": name, "password": first_password, "login": True, "member_of": [group]}
    made = steps.run(steps.ctx(CREATE, wanted))
    assert server.can_log_in(name, first_password)
    assert server.roles()[name][:2] == (True, [group])
    assert steps.plugin.observe(made).differences(wanted) == []
    changed = {**wanted, "password": second_password, "member_of": []}
    updated = steps.run(steps.ctx(UPDATE, changed, physical_id=name, data=made.data, version=2))
    assert server.can_log_in(name, second_password)
    assert not server.can_log_in(name, first_password)
    assert server.roles()[name][1] == []
    assert updated.data["oid"] == made.data["oid"]
    off = {**changed, "login": False, "password": None}
    steps.run(steps.ctx(UPDATE, off, physical_id=name, data=made.data, version=3))
    assert not server.can_log_in(name, second_password)
    # No statement the server logged holds a password: only verifiers were sent.
    log = server.server_log()
    assert "CREATE ROLE" in log and "SCRAM-SHA-256$" in log
    assert first_password not in log and second_password not in log


def test_a_role_that_owns_a_database_is_not_dropped_and_the_delete_says_why(
    server: PasswordPostgres, connections: Connections
) -> None:
    name = _unique("owner")
    steps = _role(connections)
    made = steps.run(steps.ctx(CREATE, {"name": name}))
    with server.local() as conn:
        conn.execute(f'CREATE DATABASE "{name}_db" OWNER "{name}"')
    with pytest.raises(Conflict) as refused:
        steps.run(steps.ctx(DELETE, {"name": name}, physical_id=name, data=made.data))
    message = str(refused.value)
    assert f"dropping role {name!r} failed" in message and f"owner of database {name}_db" in message
    assert name in server.roles()
    with server.local() as conn:
        conn.execute(f'DROP DATABASE "{name}_db"')
    steps.run(steps.ctx(DELETE, {"name": name}, physical_id=name, data=made.data))
    assert name not in server.roles()


def test_server_errors_are_one_line_and_never_hold_the_password(
    server: PasswordPostgres, connections: Connections
) -> None:
    password = f"never-shown-{uuid.uuid4().hex}"
    steps = _role(connections)
    with pytest.raises(Fatal) as refused:
        steps.run(steps.ctx(CREATE, {"name": _unique("r"), "password": password,
                                     "member_of": ["no_such_group"]}))  # fmt: skip
    message = str(refused.value)
    assert 'role "no_such_group" does not exist' in message
    assert password not in message and "SCRAM" not in message and "\n" not in message
    assert not [r for r in server.roles() if r.startswith("r_")]  # all or nothing
    with pytest.raises(Fatal) as refused:
        steps.run(steps.ctx(CREATE, {"name": "pg_reserved", "password": password}))
    assert "reserved" in str(refused.value) and password not in str(refused.value)
    weak = _role(connections, connection=WEAK)
    with pytest.raises(Fatal) as refused:
        weak.run(weak.ctx(CREATE, {"name": _unique("denied"), "password": password}))
    assert "permission denied to create role" in str(refused.value)
    assert password not in server.server_log()


def test_an_unreachable_server_is_transient_and_a_wrong_password_fatal(
    server: PasswordPostgres, tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-password\n", encoding="utf-8")
    path = tmp_path / "connections.yaml"
    path.write_text(
        "default:\n"
        f"  down: {{kind: postgresql, url: 'postgresql://postgres@127.0.0.1:1/postgres'}}\n"
        f"  wrong: {{kind: postgresql, url: '{server.tcp_url()}', password_file: '{wrong}'}}\n",
        encoding="utf-8",
    )
    connections = Connections(load_connections(str(path)))
    down = Steps(connections, PostgreSQLRole(), "app", "down")
    with pytest.raises(Transient) as later:
        down.run(down.ctx(CREATE, {"name": "x"}))
    assert "could not be reached through connection 'down'" in str(later.value)
    refused = Steps(connections, PostgreSQLRole(), "app", "wrong")
    with pytest.raises(Fatal) as failed:
        refused.run(refused.ctx(CREATE, {"name": "x"}))
    assert "connection 'wrong' could not log in" in str(failed.value)
    assert "not-the-password" not in str(failed.value)


def test_an_update_of_an_object_dropped_behind_our_back_is_not_found(
    server: PasswordPostgres, connections: Connections
) -> None:
    name = _unique("dropped")
    steps = _role(connections)
    made = steps.run(steps.ctx(CREATE, {"name": name}))
    with server.local() as conn:
        conn.execute(f'DROP ROLE "{name}"')
    with pytest.raises(NotFound) as gone:
        steps.run(steps.ctx(UPDATE, {"name": name}, physical_id=name, data=made.data))
    assert f"role {name!r} does not exist any more" in str(gone.value)
    assert not steps.plugin.observe(made).exists


def test_a_role_made_by_a_create_that_ended_without_an_id_is_dropped_by_its_token(
    server: PasswordPostgres, connections: Connections
) -> None:
    name = _unique("left")
    role = _role(connections)
    made = role.plugin.create(role.ctx(CREATE, {"name": name}, version=5))
    assert made.done and name in server.roles()  # its worker died before recording it

    def left(action: str, create: int, **properties: Any) -> ActionContext:
        given = role.ctx(action, {"name": name, **properties}, version=5)
        return replace(given, create_token=f"{STACK}:{create}:CREATE")

    assert role.plugin.observe(left(CHECK, 5)).exists
    # Another version's create token did not make it: its delete leaves it alone.
    assert not role.plugin.observe(left(CHECK, 6)).exists
    role.run(left(DELETE, 6))
    assert name in server.roles()
    role.run(left(DELETE, 5))
    assert name not in server.roles()
    assert not role.plugin.observe(left(CHECK, 5)).exists
    # A name PostgreSQL would not keep made nothing: its delete is done without a word.
    assert role.plugin.delete(left(DELETE, 5, name="x" * 70)).done


def test_a_database_whose_create_ended_without_an_id_made_nothing_to_drop(
    server: PasswordPostgres, connections: Connections
) -> None:
    name = _unique("never")
    database = _database(connections)
    given = database.ctx(DELETE, {"name": name, "encoding": "UTF8"}, version=9)
    left = replace(given, create_token=f"{STACK}:9:CREATE", connection=None)
    # Its create records the name before it makes anything: nothing to look for, nowhere.
    assert database.plugin.delete(left).done
    made = database.run(database.ctx(CREATE, {"name": name, "encoding": "UTF8"}, version=9))
    seen = replace(given, action=CHECK, create_token=f"{STACK}:9:CREATE")
    assert made.physical_id == name and database.plugin.observe(seen).exists
