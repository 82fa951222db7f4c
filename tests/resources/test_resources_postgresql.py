"""The pure parts of the PostgreSQL types: ownership marks, names, statements, what a
psycopg error becomes, memberships, schemas and what replaces an object."""

from __future__ import annotations

import psycopg
import psycopg.errors
import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.provider_errors import AlreadyExists, Conflict, Fatal, Transient
from conv_tasks.resources import default_registry, prepare_properties
from conv_tasks.resources.builtin.postgresql import PostgreSQLDatabase, PostgreSQLRole
from conv_tasks.resources.builtin.postgresql import statements as sql
from conv_tasks.resources.builtin.postgresql.failures import provider_error
from conv_tasks.resources.builtin.postgresql.ownership import (
    MAX_NAME_BYTES,
    Ownership,
    mark,
    name_problem,
    ownership,
    staging_name,
)
from conv_tasks.resources.builtin.postgresql.role import as_listed, membership_changes

TOKEN = "0b9d5c1e-7f3a-4c2b-9e8d-1a2b3c4d5e6f:17:CREATE"
STACK = "0b9d5c1e-7f3a-4c2b-9e8d-1a2b3c4d5e6f"


def test_a_mark_tells_this_action_an_earlier_version_and_anybody_else_apart() -> None:
    ours = mark(TOKEN, STACK, "db")
    assert ours.startswith("conv_tasks:" + TOKEN)
    assert ownership(ours, ours, STACK, "db") == Ownership.OURS
    earlier = mark(f"{STACK}:9:CREATE", STACK, "db")
    assert ownership(earlier, ours, STACK, "db") == Ownership.EARLIER
    assert ownership(mark(f"{STACK}:9:CREATE", STACK, "other"), ours, STACK, "db") == (
        Ownership.FOREIGN
    )
    assert ownership(mark("s2:9:CREATE", "s2", "db"), ours, STACK, "db") == Ownership.FOREIGN
    assert ownership(None, ours, STACK, "db") == Ownership.FOREIGN
    assert ownership("the billing database", ours, STACK, "db") == Ownership.FOREIGN


def test_a_resource_whose_name_ends_like_another_is_not_it() -> None:
    ours = mark(TOKEN, STACK, "db")
    lookalike = mark(f"{STACK}:9:CREATE", STACK, f"x resource={STACK}/db")
    assert ownership(lookalike, ours, STACK, "db") == Ownership.FOREIGN


def test_a_staging_name_is_the_tokens_own_and_fits_a_postgresql_name() -> None:
    name = staging_name(TOKEN)
    assert name == staging_name(TOKEN) != staging_name(TOKEN.replace(":17:", ":18:"))
    assert len(name.encode()) <= MAX_NAME_BYTES
    assert name_problem("database", name) is None


def test_names_postgresql_would_cut_or_refuse_are_named() -> None:
    assert name_problem("role", "a" * 63) is None
    long = name_problem("role", "é" * 32)  # 64 bytes in UTF-8
    assert long is not None and "64 bytes" in long and "at most 63" in long
    assert "NUL" in str(name_problem("database", "a\x00b"))


def test_statements_quote_names_and_values_and_never_paste_them() -> None:
    made = sql.create_database('we"ird', "own'er", "UTF8").as_string(None)
    assert made == (
        'CREATE DATABASE "we""ird" OWNER "own\'er" ENCODING \'UTF8\' TEMPLATE "template0"'
    )
    assert sql.create_database("d", None, "LATIN1").as_string(None) == (
        'CREATE DATABASE "d" ENCODING \'LATIN1\' TEMPLATE "template0"'
    )
    comment = sql.comment_on_role("r", "it's ours; DROP ROLE x").as_string(None)
    assert comment == "COMMENT ON ROLE \"r\" IS 'it''s ours; DROP ROLE x'"
    assert sql.alter_role("r", False, None).as_string(None) == (
        'ALTER ROLE "r" NOLOGIN PASSWORD NULL'
    )
    assert sql.create_role("r", True, "SCRAM-SHA-256$4096:x").as_string(None) == (
        "CREATE ROLE \"r\" LOGIN PASSWORD 'SCRAM-SHA-256$4096:x'"
    )
    assert sql.database_owner("d", None).as_string(None) == (
        'ALTER DATABASE "d" OWNER TO CURRENT_USER'
    )
    assert sql.drop_database("d").as_string(None) == 'DROP DATABASE IF EXISTS "d" WITH (FORCE)'
    assert sql.grant_membership("g", "m").as_string(None) == 'GRANT "g" TO "m"'


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (psycopg.errors.LockNotAvailable, Transient),
        (psycopg.errors.QueryCanceled, Transient),
        (psycopg.errors.AdminShutdown, Transient),
        (psycopg.errors.ConnectionFailure, Transient),
        (psycopg.errors.TooManyConnections, Transient),
        (psycopg.errors.ObjectInUse, Transient),
        (psycopg.errors.DeadlockDetected, Transient),
        (psycopg.errors.DuplicateObject, AlreadyExists),
        (psycopg.errors.DuplicateDatabase, AlreadyExists),
        (psycopg.errors.DependentObjectsStillExist, Conflict),
        (psycopg.errors.InsufficientPrivilege, Fatal),
        (psycopg.errors.SyntaxError, Fatal),
        (psycopg.errors.UndefinedObject, Fatal),
        (psycopg.errors.ReservedName, Fatal),
        (psycopg.errors.InvalidPassword, Fatal),
        (psycopg.errors.InvalidParameterValue, Fatal),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_what_a_server_error_becomes(error: type[psycopg.Error], kind: type[Exception]) -> None:
    found = provider_error(error("x"), resource="db", doing="creating database 'd'", connection="c")
    assert type(found) is kind
    assert str(found).startswith("Resource db: ")


def test_a_connection_that_cannot_be_made_is_transient_unless_it_is_refused_a_login() -> None:
    refused = psycopg.OperationalError(
        'connection failed: connection to server at "127.0.0.1", port 1 failed: Connection '
        "refused\n\tIs the server running on that host and accepting TCP/IP connections?"
    )
    found = provider_error(refused, resource="db", doing="creating", connection="ops-db")
    assert type(found) is Transient
    assert "could not be reached through connection 'ops-db'" in str(found)
    assert "\n" not in str(found)
    login = psycopg.OperationalError(
        'connection failed: connection to server at "127.0.0.1", port 1 failed: FATAL:  '
        'password authentication failed for user "postgres"'
    )
    found = provider_error(login, resource="db", doing="creating", connection="ops-db")
    assert type(found) is Fatal
    assert "connection 'ops-db' could not log in" in str(found)
    closed = psycopg.InterfaceError("the connection is closed")
    found = provider_error(closed, resource="db", doing="creating", connection="ops-db")
    assert type(found) is Transient


def test_hidden_texts_are_masked_in_what_the_server_said() -> None:
    error = psycopg.errors.SyntaxError("x")
    found = provider_error(error, resource="r", doing="changing role 'r'", connection="c")
    assert "SQLSTATE 42601" in str(found)
    found = provider_error(
        error, resource="r", doing="changing role 'SCRAM-1'", connection="c", hide=("SCRAM-1",)
    )
    assert "SCRAM-1" not in str(found) and "******" in str(found)


def test_memberships_are_granted_and_revoked_to_match_the_list() -> None:
    assert membership_changes(["a", "b"], ["b", "c", "c"]) == (["c"], ["a"])
    assert membership_changes([], []) == ([], [])
    assert as_listed(["a", "b"], ["b", "a"]) == ["b", "a"]  # the same roles: as listed
    assert as_listed(["a", "b"], ["b"]) == ["a", "b"]  # not the same: sorted, and differs


def test_the_types_are_registered_with_their_connection_kind_and_secret() -> None:
    registry = default_registry()
    assert registry.get("ConvTasks::PostgreSQL::Database") is PostgreSQLDatabase
    assert registry.get("ConvTasks::PostgreSQL::Role") is PostgreSQLRole
    assert PostgreSQLDatabase.connection_kind == PostgreSQLRole.connection_kind == "postgresql"
    assert PostgreSQLRole.secret_properties == frozenset({"password"})
    shown = registry.show("ConvTasks::PostgreSQL::Role")
    assert "password" in shown["properties"]


def test_a_new_name_or_encoding_replaces_a_database_and_a_new_owner_does_not() -> None:
    database = PostgreSQLDatabase()
    old = {"connection": "c", "name": "a", "owner": "o1", "encoding": "UTF8"}
    assert not database.needs_replacement(old, {**old, "owner": "o2"})
    assert not database.needs_replacement(old, {**old, "owner": None})
    assert database.needs_replacement(old, {**old, "name": "b"})
    assert database.needs_replacement(old, {**old, "encoding": "SQL_ASCII"})
    assert database.needs_replacement(old, {**old, "connection": "other"})


def test_a_role_changes_in_place_but_for_its_name() -> None:
    role = PostgreSQLRole()
    old = {"connection": "c", "name": "r", "password": "p" * 8, "login": True, "member_of": []}
    assert not role.needs_replacement(old, {**old, "password": "q" * 8})
    assert not role.needs_replacement(old, {**old, "password": None})
    assert not role.needs_replacement(old, {**old, "login": False})
    assert not role.needs_replacement(old, {**old, "member_of": ["g"]})
    assert role.needs_replacement(old, {**old, "name": "r2"})


def test_properties_are_checked_naming_the_property() -> None:
    path = "resources.db.properties"
    checked = prepare_properties(PostgreSQLDatabase, {"connection": "c", "name": "d"}, path=path)
    assert checked["encoding"] == "UTF8" and checked["owner"] is None
    with pytest.raises(InvalidInput) as refused:
        prepare_properties(
            PostgreSQLDatabase, {"connection": "c", "name": "d", "encoding": "utf-8"}, path=path
        )
    assert f"{path}.encoding" in str(refused.value) and "'UTF8'" in str(refused.value)
    with pytest.raises(InvalidInput) as refused:
        prepare_properties(PostgreSQLDatabase, {"connection": "c", "name": "d" * 64}, path=path)
    assert f"{path}.name" in str(refused.value)
    role_path = "resources.app.properties"
    with pytest.raises(InvalidInput) as refused:
        prepare_properties(
            PostgreSQLRole, {"connection": "c", "name": "r", "password": "short"}, path=role_path
        )
    assert f"{role_path}.password" in str(refused.value)
    assert "short" not in str(refused.value)  # the length is said, never the value
    role = prepare_properties(PostgreSQLRole, {"connection": "c", "name": "r"}, path=role_path)
    assert role["login"] is True and role["member_of"] == [] and role["password"] is None
