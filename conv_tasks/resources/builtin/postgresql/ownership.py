"""Which PostgreSQL object is whose: the mark a resource leaves on what it makes. Pure.

Databases and roles are made by name, so a step run again after its worker died finds a
name that is taken and must know whether its own first run took it. Every object these
types make carries a comment (COMMENT ON ... IS) naming the action's idempotency token and
the resource: the same token is the same action run again (adopt the object), the same
resource of the same stack with another token is an earlier version of the resource (a
replacement that keeps the name may take it over), anything else is not ours (refuse it,
and never drop it).

A database cannot be made and commented in one transaction (CREATE DATABASE runs in none),
so it is made under a staging name drawn from the token, then commented and renamed in one
transaction: a staging database is ours by its name alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from conv_tasks.sdk import ActionContext, AlreadyExists, Fatal

MARK_PREFIX = "conv_tasks:"
STAGING_PREFIX = "conv_tasks_staging_"
# PostgreSQL keeps names of at most NAMEDATALEN - 1 bytes and cuts longer ones silently.
MAX_NAME_BYTES = 63
# Plugin data: the mark the resource's object carries.
MARK = "mark"


class Ownership(StrEnum):
    OURS = "ours"  # made by this very action (the same token): adopt it
    EARLIER = "earlier"  # made by another version of the same resource of the same stack
    FOREIGN = "foreign"  # anybody else's, or nobody's we know: never touch it


def mark(token: str, stack_id: str, resource: str) -> str:
    """The comment an object made by the action `token` of `resource` carries."""
    return f"{MARK_PREFIX}{token} {_resource_part(stack_id, resource)}"


def action_mark(ctx: ActionContext) -> str:
    """The mark of what the action under way makes."""
    return mark(ctx.idempotency_token, ctx.stack_id, ctx.resource_name)


def carries_mark(comment: str | None, data: Mapping[str, Any]) -> bool:
    """Whether an object whose comment is `comment` is the one the resource (whose plugin data
    is `data`) made: a delete, an update or an observation touches no other."""
    return MARK in data and comment == data[MARK]


def ownership(comment: str | None, wanted: str, stack_id: str, resource: str) -> Ownership:
    """Whose the object whose comment is `comment` is, for the action whose mark is `wanted`."""
    if comment is None or not comment.startswith(MARK_PREFIX):
        return Ownership.FOREIGN
    if comment == wanted:
        return Ownership.OURS
    # A token has no space (stack id, version, action): what follows the first is the resource.
    _token, _, made_by = comment[len(MARK_PREFIX) :].partition(" ")
    if made_by == _resource_part(stack_id, resource):
        return Ownership.EARLIER
    return Ownership.FOREIGN


def staging_name(token: str) -> str:
    """The name a database is made under before it is marked and renamed (fits 63 bytes)."""
    return STAGING_PREFIX + hashlib.sha256(token.encode()).hexdigest()[:40]


def name_problem(kind: str, name: str) -> str | None:
    """Why PostgreSQL would not keep `name` as given, as a sentence; None if it would."""
    size = len(name.encode())
    if size > MAX_NAME_BYTES:
        return (
            f"the {kind} name {name!r} is {size} bytes long in UTF-8; PostgreSQL keeps at "
            f"most {MAX_NAME_BYTES} and would cut it"
        )
    if "\x00" in name:
        return f"the {kind} name {name!r} holds a NUL character"
    return None


def checked_name(ctx: ActionContext, kind: str, name: object) -> str:
    """`name` as the name of a `kind` (role, database), or Fatal if PostgreSQL would not keep
    it as given."""
    text = str(name)
    problem = name_problem(kind, text)
    if problem is not None:
        raise Fatal(f"Resource {ctx.resource_name}: {problem}.", resource=ctx.resource_name)
    return text


def not_ours(ctx: ActionContext, kind: str, name: str) -> AlreadyExists:
    return AlreadyExists(
        f"Resource {ctx.resource_name}: {kind} {name!r} already exists and was not made by "
        "this resource; conv_tasks neither takes it over nor drops it (choose another name, "
        "or drop it yourself).",
        resource=ctx.resource_name,
    )


def _resource_part(stack_id: str, resource: str) -> str:
    return f"resource={stack_id}/{resource}"
