"""Example::PostgreSQL::Schema: a schema in the database a `postgresql` connection names.

Create makes the schema, owned by `owner`, and marks it with a comment holding the action's
idempotency token, in one transaction: a start repeated with the same token (a retried or
resumed step) finds its own schema and is done; a schema of that name that it did not make is
refused (AlreadyExists). A change of `owner` is made in place; a change of `name` replaces the
schema. Delete drops it (RESTRICT: a schema that still holds objects is refused with Conflict);
one that is gone already is what a delete wants (NotFound). `observe` reads the schema's name
and owner back. A create that ended before conv_tasks recorded the schema's name (its worker
died after the server made it) is deleted all the same: the delete gets the create's token
(ctx.create_token), and drops the schema of its name that carries that token's mark. Every
step is one or two statements: it never waits for anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import psycopg
from psycopg import errors, sql

from conv_tasks.sdk import (
    STRING,
    ActionContext,
    AlreadyExists,
    AttributeSchema,
    Conflict,
    Constraint,
    Fatal,
    NotFound,
    Observed,
    Progress,
    PropertySchema,
    ResourceType,
    Transient,
    connection_property,
)

# What the schema's comment says when this type made it: the mark and the creating token.
MARK = "conv_tasks:"
_IDENTIFIER = Constraint.allowed_pattern(
    r"^[a-z_][a-z0-9_]{0,62}$",
    description="lower-case letters, digits and underscores, at most 63, not starting with a digit",
)

T = TypeVar("T")
# What a server says when it will not let us in (asking again will not help); libpq gives
# these without an SQLSTATE.
_REFUSALS = ("authentication failed", "pg_hba.conf", "does not exist", "permission denied")


class SchemaResource(ResourceType):
    """A schema in a PostgreSQL database, owned by a role."""

    type_name: ClassVar[str] = "Example::PostgreSQL::Schema"
    sdk_versions: ClassVar[str | None] = ">=1.2,<2"  # 1.2: ActionContext.create_token
    connection_kind: ClassVar[str | None] = "postgresql"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "connection": connection_property("postgresql"),
        "name": PropertySchema(
            STRING,
            "The schema's name; a change replaces the schema.",
            required=True,
            constraints=(_IDENTIFIER,),
        ),
        "owner": PropertySchema(
            STRING,
            "The role that owns the schema (it must exist); changed in place.",
            required=True,
            update_allowed=True,
            constraints=(Constraint.length(1, 63),),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "name": AttributeSchema("The schema's name.", type=STRING),
        "owner": AttributeSchema("The role that owns it.", type=STRING),
    }

    def create(self, ctx: ActionContext) -> Progress:
        name, owner = ctx.properties["name"], ctx.properties["owner"]
        mark = MARK + ctx.idempotency_token

        def make(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                conn.execute(
                    sql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(
                        sql.Identifier(name), sql.Identifier(owner)
                    )
                )
                conn.execute(
                    sql.SQL("COMMENT ON SCHEMA {} IS {}").format(
                        sql.Identifier(name), sql.Literal(mark)
                    )
                )

        try:
            _run(ctx, make)
        except errors.DuplicateSchema:
            if _comment(ctx, name) != mark:
                raise AlreadyExists(
                    f"Resource {ctx.resource_name}: schema {name!r} exists already and was not "
                    "made by this resource.",
                    resource=ctx.resource_name,
                    action=ctx.action,
                ) from None
        return Progress(done=True, physical_id=name, data={"name": name, "owner": owner})

    def update(self, ctx: ActionContext) -> Progress:
        name, owner = self._name(ctx), ctx.properties["owner"]
        statement = sql.SQL("ALTER SCHEMA {} OWNER TO {}").format(
            sql.Identifier(name), sql.Identifier(owner)
        )
        _run(ctx, lambda conn: conn.execute(statement))
        return Progress(done=True, data={"name": name, "owner": owner})

    def delete(self, ctx: ActionContext) -> Progress:
        name = _made(ctx)
        if name is None:
            return Progress(done=True)  # never made
        statement = sql.SQL("DROP SCHEMA {} RESTRICT").format(sql.Identifier(name))
        try:
            _run(ctx, lambda conn: conn.execute(statement))
        except errors.InvalidSchemaName:
            raise NotFound(f"schema {name!r} is not there") from None
        except errors.DependentObjectsStillExist:
            raise Conflict(
                f"Resource {ctx.resource_name}: schema {name!r} still holds objects; drop them "
                "first.",
                resource=ctx.resource_name,
                action=ctx.action,
            ) from None
        return Progress(done=True)

    def observe(self, ctx: ActionContext) -> Observed | None:
        name = _made(ctx)
        if name is None:
            return Observed(exists=False)
        query = (
            "SELECT n.nspname, r.rolname FROM pg_namespace n "
            "JOIN pg_roles r ON r.oid = n.nspowner WHERE n.nspname = %s"
        )
        row = _run(ctx, lambda conn: conn.execute(query, (name,)).fetchone())
        if row is None:
            return Observed(exists=False)
        return Observed(exists=True, properties={"name": row[0], "owner": row[1]})

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        # Each step is a statement or two: a server that stays away this long is not coming.
        return 300.0

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"name": ctx.data.get("name"), "owner": ctx.data.get("owner")}

    def _name(self, ctx: ActionContext) -> str:
        if ctx.physical_id is None:
            raise Fatal(f"Resource {ctx.resource_name}: it has no schema to change.")
        return ctx.physical_id


def _made(ctx: ActionContext) -> str | None:
    """The schema the resource made: its physical id; or, for a create that ended before
    recording one, the schema its properties name if it carries that create's mark."""
    if ctx.physical_id is not None:
        return ctx.physical_id
    if ctx.create_token is None:
        return None
    name = str(ctx.properties.get("name") or "")
    return name if name and _comment(ctx, name) == MARK + ctx.create_token else None


def _comment(ctx: ActionContext, name: str) -> str | None:
    query = "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s"
    row = _run(ctx, lambda conn: conn.execute(query, (name,)).fetchone())
    return None if row is None else row[0]


def _run(ctx: ActionContext, work: Callable[[psycopg.Connection[Any]], T]) -> T:
    """`work` on the connection's client, with what PostgreSQL answers in the SDK's words: a
    connection that failed is Transient (the engine asks again later), unless the server
    refused it (a wrong password); a missing role, a refused privilege or a reserved name
    fails the action with PostgreSQL's message. Errors the caller handles itself (a
    duplicate schema, a missing one, objects left) pass through."""
    try:
        return work(ctx.client())
    except (errors.DuplicateSchema, errors.InvalidSchemaName, errors.DependentObjectsStillExist):
        raise
    except psycopg.OperationalError as exc:
        if not any(refusal in str(exc) for refusal in _REFUSALS):
            raise Transient(f"PostgreSQL did not answer: {_first_line(exc)}") from None
        raise Fatal(
            f"Resource {ctx.resource_name}: PostgreSQL refused the connection: {_first_line(exc)}",
            resource=ctx.resource_name,
            action=ctx.action,
        ) from None
    except psycopg.Error as exc:
        raise Fatal(
            f"Resource {ctx.resource_name}: PostgreSQL refused it: {_first_line(exc)}",
            resource=ctx.resource_name,
            action=ctx.action,
        ) from None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
