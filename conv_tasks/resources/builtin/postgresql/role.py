"""ConvTasks::PostgreSQL::Role: a role (a user, or a group of them) on a PostgreSQL server.

Its name is fixed when it is made: a new name replaces it. Its password, whether it may log
in and the roles it is a member of change in place. The role is made, marked as ours
(ownership.py) and given its memberships in one transaction, so a step run again after its
worker died either finds nothing and makes it, or finds it marked with its own token and
adopts it; a role of that name that is not ours is refused, never taken over or dropped.

The password is a secret property: the engine masks it wherever it would be shown. It never
reaches the server either: libpq computes its verifier here, and only that is sent
(session.password_verifier), so no statement, server log or error can hold it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import psycopg

from conv_tasks.resources.builtin.postgresql import statements
from conv_tasks.resources.builtin.postgresql.catalog import FoundRole, find_role
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
)
from conv_tasks.resources.builtin.postgresql.session import acting, password_verifier
from conv_tasks.sdk import (
    BOOLEAN,
    INTEGER,
    LIST,
    STRING,
    ActionContext,
    AttributeSchema,
    Constraint,
    Observed,
    Progress,
    PropertySchema,
    ResourceType,
    SupportStatus,
)

_NAME = (Constraint.length(1, 63),)
# A password shorter than this is refused: a secret is masked wherever its text appears, and
# a short one would mask common words in every message about the stack.
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024


class PostgreSQLRole(ResourceType):
    """A role on a PostgreSQL server."""

    type_name: ClassVar[str] = "ConvTasks::PostgreSQL::Role"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="1.0")
    sdk_versions: ClassVar[str | None] = ">=1.0,<2"
    connection_kind: ClassVar[str | None] = "postgresql"
    # It acts only on objects that carry its resource's mark (ownership.py): one made outside
    # conv_tasks is never touched, so it is not adopted either.
    not_adoptable: ClassVar[str | None] = (
        "it acts only on the roles its resources made and marked, never on one made outside "
        "conv_tasks"
    )
    secret_properties: ClassVar[frozenset[str]] = frozenset({"password"})
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "connection": PropertySchema(
            STRING,
            "The postgresql connection to act through (its role needs CREATEROLE and, from "
            "PostgreSQL 16, ADMIN on the roles in member_of).",
            required=True,
        ),
        "name": PropertySchema(
            STRING,
            "The role's name; a new name replaces the role.",
            required=True,
            constraints=_NAME,
        ),
        "password": PropertySchema(
            STRING,
            "The role's password (changed in place; never shown); left out: it has none.",
            update_allowed=True,
            constraints=(Constraint.length(MIN_PASSWORD_CHARS, MAX_PASSWORD_CHARS),),
        ),
        "login": PropertySchema(
            BOOLEAN,
            "Whether the role may log in (changed in place).",
            default=True,
            update_allowed=True,
        ),
        "member_of": PropertySchema(
            LIST,
            "The roles this role is a member of, by name (changed in place: memberships "
            "not listed are revoked).",
            default=[],
            update_allowed=True,
            schema=PropertySchema(STRING, constraints=_NAME),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "name": AttributeSchema("The role's name.", type=STRING),
        "oid": AttributeSchema("The role's object id in pg_roles.", type=INTEGER),
    }

    def create(self, ctx: ActionContext) -> Progress:
        name, wanted = _name(ctx), action_mark(ctx)
        hide = _hidden(ctx)
        with acting(ctx, f"creating role {name!r}", hide=hide) as conn:
            verifier = _verifier(ctx, conn, name, hide)
            found = find_role(conn, name)
            if found is None:
                try:
                    with conn.transaction():
                        conn.execute(statements.create_role(name, _login(ctx), verifier))
                        conn.execute(statements.comment_on_role(name, wanted))
                        for group in _member_of(ctx):
                            conn.execute(statements.grant_membership(group, name))
                except psycopg.errors.DuplicateObject:
                    # Somebody made a role of that name since we looked: it is theirs.
                    raise not_ours(ctx, "role", name) from None
            else:
                whose = ownership(found.comment, wanted, ctx.stack_id, ctx.resource_name)
                if whose == Ownership.FOREIGN:
                    raise not_ours(ctx, "role", name)
                remark = wanted if whose == Ownership.EARLIER else None
                _converge(ctx, conn, found, verifier, remark)
            found = found_again(ctx, conn, "role", find_role, name)
        return _done(found, wanted)

    def update(self, ctx: ActionContext) -> Progress:
        """Set the password and login, and grant and revoke memberships, as the properties say."""
        name = str(ctx.physical_id)
        hide = _hidden(ctx)
        with acting(ctx, f"changing role {name!r}", hide=hide) as conn:
            verifier = _verifier(ctx, conn, name, hide)
            found = ours(ctx, conn, find_role, name)
            if found is None:
                raise gone(ctx, "role", name)
            _converge(ctx, conn, found, verifier, None)
            found = found_again(ctx, conn, "role", find_role, name)
        return _done(found, str(ctx.data.get(MARK)))

    def delete(self, ctx: ActionContext) -> Progress:
        """Drop the role if it is ours. One that still owns objects (a database it owns, say)
        or holds privileges is not dropped: the delete fails with Conflict, naming them, and
        nothing of anybody's is reassigned or dropped with it. A create that ended before
        it recorded the role left one carrying its create's mark, if any: that one goes."""
        ctx = made_by_create(ctx, "role")
        if ctx.physical_id is not None:
            with acting(ctx, f"dropping role {ctx.physical_id!r}") as conn:
                drop_ours(ctx, conn, "role", find_role, statements.drop_role)
        return Progress(done=True)

    def observe(self, ctx: ActionContext) -> Observed:
        """The role's name, login and memberships (its password cannot be read back)."""
        found = read_ours(made_by_create(ctx, "role"), "role", find_role)
        if found is None:
            return Observed(exists=False)
        seen = {
            "name": found.name,
            "login": found.login,
            "member_of": as_listed(found.member_of, ctx.properties.get("member_of") or []),
        }
        return Observed(exists=True, properties=seen)

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"name": ctx.physical_id, "oid": ctx.data.get("oid")}


def as_listed(found: Sequence[str], listed: Sequence[str]) -> list[str]:
    """The memberships found, in the order the template lists them when they are the same
    roles (the order of a list of roles means nothing), else sorted."""
    if set(found) == set(listed):
        return list(dict.fromkeys(listed))
    return sorted(found)


def membership_changes(found: Sequence[str], wanted: Sequence[str]) -> tuple[list[str], list[str]]:
    """(roles to grant, roles to revoke) to go from the memberships found to those wanted."""
    return sorted(set(wanted) - set(found)), sorted(set(found) - set(wanted))


def _hidden(ctx: ActionContext) -> list[str]:
    """What a failure of the step must not say: the password (which is never sent), and
    the verifier computed from it (added when it is)."""
    password = ctx.properties.get("password")
    return [str(password)] if password else []


def _verifier(ctx: ActionContext, conn: Any, name: str, hide: list[str]) -> str | None:
    verifier = password_verifier(conn, name, ctx.properties.get("password"))
    if verifier is not None:
        hide.append(verifier)
    return verifier


def _converge(
    ctx: ActionContext, conn: Any, found: FoundRole, verifier: str | None, remark: str | None
) -> None:
    """Bring an existing role to the properties, in one transaction (and mark it ours, when
    taking it over from an earlier version of the resource)."""
    grant, revoke = membership_changes(found.member_of, _member_of(ctx))
    with conn.transaction():
        conn.execute(statements.alter_role(found.name, _login(ctx), verifier))
        if remark is not None:
            conn.execute(statements.comment_on_role(found.name, remark))
        for group in grant:
            conn.execute(statements.grant_membership(group, found.name))
        for group in revoke:
            conn.execute(statements.revoke_membership(group, found.name))


def _done(found: FoundRole, wanted: str) -> Progress:
    return Progress(done=True, physical_id=found.name, data={MARK: wanted, "oid": found.oid})


def _name(ctx: ActionContext) -> str:
    return checked_name(ctx, "role", ctx.properties["name"])


def _login(ctx: ActionContext) -> bool:
    return bool(ctx.properties.get("login", True))


def _member_of(ctx: ActionContext) -> list[str]:
    groups = [checked_name(ctx, "role", group) for group in ctx.properties.get("member_of") or []]
    return list(dict.fromkeys(groups))
