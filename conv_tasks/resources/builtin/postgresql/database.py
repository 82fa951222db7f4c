"""ConvTasks::PostgreSQL::Database: a database on a PostgreSQL server, made through a connection.

Its name and its encoding are fixed when it is made: changing either replaces it (a new
database is made, the old one dropped once the update is done). Its owner changes in place.
A create first records the name as the resource's physical id and where its staging copy
will be (so a clean-up after any failure finds what to drop), then makes the database under
a staging name, and marks and renames it in one transaction (ownership.py): a step run
again after its worker died adopts what its first run made, and a database of that name
that is not ours is refused, never taken over or dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import psycopg

from conv_tasks.resources.builtin.postgresql import statements
from conv_tasks.resources.builtin.postgresql.catalog import FoundDatabase, find_database
from conv_tasks.resources.builtin.postgresql.marked import (
    drop_ours,
    found_again,
    gone,
    made_by_create,
    ours,
    read_ours,
)
from conv_tasks.resources.builtin.postgresql.ownership import (
    MARK,
    Ownership,
    action_mark,
    checked_name,
    not_ours,
    ownership,
    staging_name,
)
from conv_tasks.resources.builtin.postgresql.session import acting
from conv_tasks.sdk import (
    CREATE,
    INTEGER,
    STRING,
    ActionContext,
    AttributeSchema,
    Conflict,
    Constraint,
    Observed,
    Progress,
    PropertySchema,
    ResourceType,
    SupportStatus,
)

# The encodings a PostgreSQL database may have (the server-side ones), as the server names
# them (pg_encoding_to_char), so that what `observe` reads compares equal.
SERVER_ENCODINGS = (
    "UTF8", "SQL_ASCII",
    "EUC_CN", "EUC_JP", "EUC_JIS_2004", "EUC_KR", "EUC_TW",
    "ISO_8859_5", "ISO_8859_6", "ISO_8859_7", "ISO_8859_8", "KOI8R", "KOI8U",
    "LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5",
    "LATIN6", "LATIN7", "LATIN8", "LATIN9", "LATIN10", "MULE_INTERNAL",
    "WIN866", "WIN874", "WIN1250", "WIN1251", "WIN1252",
    "WIN1253", "WIN1254", "WIN1255", "WIN1256", "WIN1257", "WIN1258",
)  # fmt: skip
# A name PostgreSQL keeps (63 bytes: ownership.name_problem checks the bytes).
_NAME = (Constraint.length(1, 63),)
# Plugin data (beside ownership.MARK): the staging name the database is made under.
STAGING = "staging"


class PostgreSQLDatabase(ResourceType):
    """A database on a PostgreSQL server."""

    type_name: ClassVar[str] = "ConvTasks::PostgreSQL::Database"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="1.0")
    sdk_versions: ClassVar[str | None] = ">=1.0,<2"
    connection_kind: ClassVar[str | None] = "postgresql"
    # It acts only on objects that carry its resource's mark (ownership.py): one made outside
    # conv_tasks is never touched, so it is not adopted either.
    not_adoptable: ClassVar[str | None] = (
        "it acts only on the databases its resources made and marked, never on one made outside "
        "conv_tasks"
    )
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "connection": PropertySchema(
            STRING,
            "The postgresql connection to act through (its role needs CREATEDB, and must be "
            "able to give databases to their owner).",
            required=True,
        ),
        "name": PropertySchema(
            STRING,
            "The database's name; a new name replaces the database.",
            required=True,
            constraints=_NAME,
        ),
        "owner": PropertySchema(
            STRING,
            "The role that owns the database (changed in place); default: the connection's role.",
            update_allowed=True,
            constraints=_NAME,
        ),
        "encoding": PropertySchema(
            STRING,
            "The database's character encoding, as PostgreSQL names it; a new encoding "
            "replaces the database.",
            default="UTF8",
            constraints=(Constraint.allowed_values(*SERVER_ENCODINGS),),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "name": AttributeSchema("The database's name.", type=STRING),
        "oid": AttributeSchema("The database's object id in pg_database.", type=INTEGER),
        "owner": AttributeSchema("The role that owns the database.", type=STRING),
        "encoding": AttributeSchema("The database's character encoding.", type=STRING),
    }

    def create(self, ctx: ActionContext) -> Progress:
        """Record the name and the staging name first: whatever happens next, a clean-up of
        this version knows what to look for. A create resumed after that makes the database."""
        if ctx.data.get(MARK) == action_mark(ctx):
            return self.check_create(ctx)
        name = _name(ctx)
        return Progress(
            done=False,
            physical_id=name,
            data={MARK: action_mark(ctx), STAGING: staging_name(ctx.idempotency_token)},
            poll_after=0.05,
        )

    def check_create(self, ctx: ActionContext) -> Progress:
        name, owner, encoding = _name(ctx), _owner(ctx), str(ctx.properties["encoding"])
        wanted, staging = action_mark(ctx), staging_name(ctx.idempotency_token)
        with acting(ctx, f"creating database {name!r}") as conn:
            found = find_database(conn, name)
            if found is None:
                found = _made(ctx, conn, name, owner, encoding, staging, wanted)
            else:
                found = _adopted(ctx, conn, found, owner, encoding, wanted)
        return _done(found, wanted)

    def update(self, ctx: ActionContext) -> Progress:
        """Only the owner changes in place (a new name or encoding replaces the database)."""
        name, owner = str(ctx.physical_id), _owner(ctx)
        with acting(ctx, f"changing the owner of database {name!r}") as conn:
            found = ours(ctx, conn, find_database, name)
            if found is None:
                raise gone(ctx, "database", name)
            if owner is None or found.owner != owner:
                conn.execute(statements.database_owner(name, owner))
            found = found_again(ctx, conn, "database", find_database, name)
        return _done(found, str(ctx.data.get(MARK)))

    def delete(self, ctx: ActionContext) -> Progress:
        """Drop the database if it is ours, ending the sessions connected to it; one that is
        gone, or that is not ours any more, is left as it is."""
        name = ctx.physical_id
        if name is None and STAGING not in ctx.data:
            # Nothing was ever made: a create records the name (and the staging name) before
            # it makes anything, so one that ended without them (ctx.create_token) made none.
            return Progress(done=True)
        doing = f"dropping database {name!r}" if name else "dropping an unfinished database"
        with acting(ctx, doing) as conn:
            drop_ours(ctx, conn, "database", find_database, statements.drop_database)
            _drop_staging(conn, ctx.data)
        return Progress(done=True)

    def interrupt(self, ctx: ActionContext) -> None:
        """A create stopped before it finished: its staging database (if made) goes."""
        if ctx.action != CREATE:
            return
        with acting(ctx, "dropping an unfinished database") as conn:
            _drop_staging(conn, ctx.data)

    def observe(self, ctx: ActionContext) -> Observed:
        found = read_ours(made_by_create(ctx, "database"), "database", find_database)
        if found is None:
            return Observed(exists=False)
        seen: dict[str, Any] = {"name": found.name, "encoding": found.encoding}
        if ctx.properties.get("owner") is not None:  # else: whoever the connection's role is
            seen["owner"] = found.owner
        return Observed(exists=True, properties=seen)

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {
            "name": ctx.physical_id,
            "oid": ctx.data.get("oid"),
            "owner": ctx.data.get("owner"),
            "encoding": ctx.data.get("encoding"),
        }


def _made(
    ctx: ActionContext,
    conn: Any,
    name: str,
    owner: str | None,
    encoding: str,
    staging: str,
    wanted: str,
) -> FoundDatabase:
    """Make the database under its staging name (unless a first run did), then mark it and
    give it its name in one transaction."""
    if find_database(conn, staging) is None:
        conn.execute(statements.create_database(staging, owner, encoding))
    try:
        with conn.transaction():
            conn.execute(statements.comment_on_database(staging, wanted))
            conn.execute(statements.rename_database(staging, name))
    except psycopg.errors.DuplicateDatabase:
        # Somebody made a database of that name since we looked: it is theirs.
        conn.execute(statements.drop_database(staging))
        raise not_ours(ctx, "database", name) from None
    return found_again(ctx, conn, "database", find_database, name)


def _adopted(
    ctx: ActionContext,
    conn: Any,
    found: FoundDatabase,
    owner: str | None,
    encoding: str,
    wanted: str,
) -> FoundDatabase:
    """The name is taken: by what this action made (adopt it), by an earlier version of this
    resource (take it over, if it has the encoding wanted), or by somebody else (refuse)."""
    whose = ownership(found.comment, wanted, ctx.stack_id, ctx.resource_name)
    if whose == Ownership.FOREIGN:
        raise not_ours(ctx, "database", found.name)
    if whose == Ownership.EARLIER:
        if found.encoding != encoding:
            raise Conflict(
                f"Resource {ctx.resource_name}: database {found.name!r} already exists with "
                f"encoding {found.encoding}, made by an earlier version of this resource; a "
                "database's encoding cannot change in place and the new one needs its name: "
                "give the database a new name with the new encoding.",
                resource=ctx.resource_name,
            )
        conn.execute(statements.comment_on_database(found.name, wanted))
    if owner is None or found.owner != owner:
        conn.execute(statements.database_owner(found.name, owner))
    return found_again(ctx, conn, "database", find_database, found.name)


def _drop_staging(conn: Any, data: Mapping[str, Any]) -> None:
    """Drop the staging database a create made and never renamed (ours by its name)."""
    staging = data.get(STAGING)
    if isinstance(staging, str) and find_database(conn, staging) is not None:
        conn.execute(statements.drop_database(staging))


def _done(found: FoundDatabase, wanted: str) -> Progress:
    return Progress(
        done=True,
        physical_id=found.name,
        data={
            MARK: wanted,
            "oid": found.oid,
            "owner": found.owner,
            "encoding": found.encoding,
        },
    )


def _name(ctx: ActionContext) -> str:
    return checked_name(ctx, "database", ctx.properties["name"])


def _owner(ctx: ActionContext) -> str | None:
    owner = ctx.properties.get("owner")
    return None if owner is None else checked_name(ctx, "role", owner)
