"""A worker killed in the middle of creating a PostgreSQL database and a role leaves exactly
one of each once another worker resumes the creates, and none once the stack is deleted
instead (issue 31); a server that is down holds the creates (put off, never failed) until it
is back (issue 21).

The test holds a lock that every COMMENT ON needs (a SHARE lock on pg_shdescription), so
both creates stop at the step that marks their object as ours: the database has been made
under its staging name (CREATE DATABASE runs in no transaction, so it is there for good),
the role has been made in a transaction that is not committed. The worker is killed there
(SIGKILL on its process group), the lock released, and another worker resumes each create
with the same token: it marks and renames the staging database instead of making a second
one, and makes the role once. Deleted instead, the database's delete drops its staging copy
(whose name it recorded first). For a role that was made, marked and committed before its
worker died, the test also holds pg_auth_members, which only the create's read-back needs:
the role has no physical id then, and its delete finds it by the create's token (its mark).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from postgresql_world import ADMIN, APPLICATION, TypesCluster, types_cluster, wait_until

LOCK_TTL = 4.0


@pytest.fixture
def cluster(
    database_url: str, broker_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[TypesCluster]:
    with types_cluster(
        database_url, broker_url, tmp_path, request, lock_ttl=LOCK_TTL, workers=0
    ) as running:
        yield running


def _template(suffix: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "app": {
                "type": "ConvTasks::PostgreSQL::Role",
                "properties": {
                    "connection": ADMIN,
                    "name": f"app_{suffix}",
                    "password": f"pw-{uuid.uuid4().hex}",
                },
            },
            "db": {
                "type": "ConvTasks::PostgreSQL::Database",
                "properties": {"connection": ADMIN, "name": f"tenant_{suffix}"},
            },
        },
    }


def test_a_worker_killed_mid_create_leaves_one_database_and_one_role(
    cluster: TypesCluster,
) -> None:
    server, processes = cluster.server, cluster.processes
    suffix = uuid.uuid4().hex[:8]
    cluster.start_worker("a", concurrency=2)
    with server.local() as blocker, server.local() as watcher:
        blocker.autocommit = False
        blocker.execute("LOCK TABLE pg_catalog.pg_shdescription IN SHARE MODE")
        stack_id = cluster.client.create("killed", _template(suffix))["stack_id"]

        def both_waiting() -> bool:
            rows = watcher.execute(
                "SELECT query FROM pg_stat_activity WHERE application_name = %s "
                "AND wait_event_type = 'Lock'",
                (APPLICATION,),
            ).fetchall()
            queries = " ".join(query for (query,) in rows)
            return "COMMENT ON DATABASE" in queries and "COMMENT ON ROLE" in queries

        wait_until(both_waiting, "both creates waiting to mark their objects")
        processes.kill("a")
        made = server.databases()
        assert [name for name in made if name.startswith("conv_tasks_staging_")], made
        blocker.rollback()  # the lock goes; the dead worker's transactions end unfinished

    cluster.start_worker("b", concurrency=2)
    final = cluster.wait_status(stack_id, timeout=120)
    assert final["status"] == "CREATE_COMPLETE", final
    databases, roles = server.databases(), server.roles()
    assert list(databases) == [f"tenant_{suffix}"], databases  # one, and no staging left
    assert list(roles) == [f"app_{suffix}"], roles
    [(_, _, comment)] = databases.values()
    assert comment is not None and comment.startswith(f"conv_tasks:{stack_id}:")

    cluster.client.delete(stack_id)
    assert cluster.wait_status(stack_id)["status"] == "DELETE_COMPLETE"
    assert not server.databases() and not server.roles()


def _both_waiting_to_mark(watcher: Any) -> bool:
    rows = watcher.execute(
        "SELECT query FROM pg_stat_activity WHERE application_name = %s "
        "AND wait_event_type = 'Lock'",
        (APPLICATION,),
    ).fetchall()
    queries = " ".join(query for (query,) in rows)
    return "COMMENT ON DATABASE" in queries and "COMMENT ON ROLE" in queries


def test_a_stack_deleted_after_its_worker_died_mid_create_leaves_nothing(
    cluster: TypesCluster,
) -> None:
    server, processes = cluster.server, cluster.processes
    suffix = uuid.uuid4().hex[:8]
    cluster.start_worker("a", concurrency=2)
    with server.local() as blocker, server.local() as members, server.local() as watcher:
        blocker.autocommit = False
        blocker.execute("LOCK TABLE pg_catalog.pg_shdescription IN SHARE MODE")
        stack_id = cluster.client.create("left", _template(suffix))["stack_id"]
        wait_until(lambda: _both_waiting_to_mark(watcher), "both creates waiting to mark")
        # The role's transaction may go on and commit; its read-back then waits here.
        members.execute("SET lock_timeout = '20s'")  # never a test that hangs
        members.autocommit = False
        members.execute("LOCK TABLE pg_catalog.pg_auth_members IN ACCESS EXCLUSIVE MODE")
        blocker.rollback()

        def role_read_back_waiting() -> bool:
            rows = watcher.execute(
                "SELECT query FROM pg_stat_activity WHERE application_name = %s "
                "AND wait_event_type = 'Lock'",
                (APPLICATION,),
            ).fetchall()
            return any("pg_auth_members" in query for (query,) in rows)

        wait_until(role_read_back_waiting, "the role made, its read-back waiting")
        processes.kill("a")
        # Made, marked, committed (pg_roles: server.roles() would wait for pg_auth_members).
        made = watcher.execute(
            "SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = %s",
            (f"app_{suffix}",),
        ).fetchall()
        assert [comment.startswith(f"conv_tasks:{stack_id}:") for (comment,) in made] == [True]
        members.rollback()

    cluster.start_worker("b", concurrency=2)
    cluster.client.delete(stack_id)
    final = cluster.wait_status(stack_id, timeout=120)
    assert final["status"] == "DELETE_COMPLETE", final
    assert not server.databases()  # neither the database nor its staging copy
    assert not server.roles()


def test_a_server_that_is_down_is_waited_for_and_the_create_ends_with_one_of_each(
    cluster: TypesCluster,
) -> None:
    server = cluster.server
    suffix = uuid.uuid4().hex[:8]
    cluster.start_worker("a", concurrency=2)
    server.stop()
    try:
        stack_id = cluster.client.create("down", _template(suffix))["stack_id"]
        # Each step is put off (Transient) while the server is down, never failed.
        wait_until(
            lambda: cluster.worker_logs().count("step put off") >= 4,
            "the creates being put off while the server is down",
        )
        assert cluster.client.get(stack_id)["status"] == "CREATE_IN_PROGRESS"
    finally:
        server.start()
    final = cluster.wait_status(stack_id, timeout=120)
    assert final["status"] == "CREATE_COMPLETE", final
    assert list(server.databases()) == [f"tenant_{suffix}"]
    assert list(server.roles()) == [f"app_{suffix}"]
    assert "could not be reached through connection 'tenant-db'" in cluster.worker_logs()
