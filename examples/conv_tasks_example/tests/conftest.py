"""What the example's tests stand on: a PostgreSQL cluster of their own, with two roles, and a
proxy in front of it that drops connections on demand.

The conformance kit's fixtures (`conformance`, `private_postgres`) come with conv_tasks, through
its pytest plugin: nothing here imports conv_tasks' own tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conv_tasks_example.schema import MARK

from conv_tasks.testing import (
    UNIQUE,
    CheckedStack,
    FaultPlan,
    PrivatePostgres,
    TcpFaultProxy,
    TypeCase,
    connections_file,
)

ROLES = ("alice", "bob")


@pytest.fixture(scope="session")
def postgres(private_postgres: PrivatePostgres) -> Iterator[PrivatePostgres]:
    """The private cluster, with the roles that own the schemas."""
    with private_postgres.connect() as conn:
        for role in ROLES:
            conn.execute(f'CREATE ROLE "{role}"')
    yield private_postgres


@pytest.fixture(scope="session")
def flaky_postgres(postgres: PrivatePostgres) -> Iterator[TcpFaultProxy]:
    """A proxy in front of the cluster that, while its faults are on, closes some connections
    as they come and cuts others in the middle (FaultPlan's defaults)."""
    proxy = TcpFaultProxy(postgres.port, FaultPlan()).start()
    try:
        yield proxy
    finally:
        proxy.stop()


def connections(
    postgres: PrivatePostgres, password_file: str | None = None, *, port: int | None = None
) -> str:
    """The CONV_TASKS_CONNECTIONS file of the cluster's workers: one connection, `example-db`,
    whose password is read from a file (never written in this file); through `port` (a
    proxy's) when given."""
    example_db = postgres.connection()
    if password_file is not None:
        example_db["password_file"] = password_file
    if port is not None:
        example_db["url"] = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    return connections_file({"example-db": example_db})


def schemas_made_by(postgres: PrivatePostgres) -> Any:
    """The case's census: how many schemas the stack's resources made (their mark names the
    stack, whose id starts every token)."""

    def count(stack: CheckedStack) -> int:
        with postgres.connect() as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_namespace "
                "WHERE obj_description(oid, 'pg_namespace') LIKE %s",
                (f"{MARK}{stack.stack_id}:%",),
            ).fetchone()
        return int(row[0]) if row else 0

    return count


@pytest.fixture
def schema_case(postgres: PrivatePostgres) -> TypeCase:
    return TypeCase(
        type_name="Example::PostgreSQL::Schema",
        # Each stack the kit makes gets its own schema names (UNIQUE: a suffix of its own).
        properties={"connection": "example-db", "name": f"tenant_one_{UNIQUE}", "owner": "alice"},
        update_in_place={"owner": "bob"},
        update_replace={"name": f"tenant_two_{UNIQUE}"},
        connections=connections(postgres),
        count_objects=schemas_made_by(postgres),
    )
