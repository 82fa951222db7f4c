"""The object a resource made, found again by its name and its mark (ownership.py): what its
update changes, its delete drops and `observe` reads. Whatever else holds the name (the
object was dropped and somebody made another) is never touched. A create that ended before
it recorded its object (its worker died after the server made it) left an object of the
name its properties give, carrying its create's mark (`made_by_create`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from psycopg import sql

from conv_tasks.resources.builtin.postgresql.ownership import (
    MARK,
    carries_mark,
    mark,
    name_problem,
)
from conv_tasks.resources.builtin.postgresql.session import acting
from conv_tasks.sdk import ActionContext, NotFound, Transient

log = logging.getLogger(__name__)


class Marked(Protocol):
    @property
    def comment(self) -> str | None: ...


M = TypeVar("M", bound=Marked)
# Reads one object by name from the catalogs (catalog.find_database, find_role).
Finder = Callable[[Any, str], M | None]


def made_by_create(ctx: ActionContext, kind: str) -> ActionContext:
    """The context of a version without a physical id whose create ended before it recorded
    one (ctx.create_token): its object is the `kind` named as its `name` property says that
    carries that create's mark, if any; anything else of that name is not its own. A name
    PostgreSQL would not keep made nothing (the create failed on it): the context then
    names no object."""
    name = ctx.properties.get("name")
    if ctx.physical_id is not None or ctx.create_token is None or not isinstance(name, str):
        return ctx
    if name_problem(kind, name) is not None:
        return ctx
    made = mark(ctx.create_token, ctx.stack_id, ctx.resource_name)
    return replace(ctx, physical_id=name, data={**ctx.data, MARK: made})


def ours(ctx: ActionContext, conn: Any, find: Finder[M], name: str) -> M | None:
    """The object `name` (as `find` reads it) if it carries the resource's mark."""
    found = find(conn, name)
    return found if found is not None and carries_mark(found.comment, ctx.data) else None


def read_ours(ctx: ActionContext, kind: str, find: Finder[M]) -> M | None:
    """The resource's object, read in a session of its own (for `observe`); None if it has
    none, or it is gone."""
    name = ctx.physical_id
    if name is None:
        return None
    with acting(ctx, f"reading {kind} {name!r}") as conn:
        return ours(ctx, conn, find, name)


def drop_ours(
    ctx: ActionContext,
    conn: Any,
    kind: str,
    find: Finder[M],
    drop: Callable[[str], sql.Composed],
) -> None:
    """Drop the resource's object if it is still there; another of that name stays."""
    name = ctx.physical_id
    if name is None:
        return
    if ours(ctx, conn, find, name) is not None:
        conn.execute(drop(name))
    elif find(conn, name) is not None:
        left = "resource %s: %s %r is not the one it made: left in place"
        log.info(left, ctx.resource_name, kind, name)


def found_again(ctx: ActionContext, conn: Any, kind: str, find: Finder[M], name: str) -> M:
    """The object a step just made or changed, read back; if somebody dropped it meanwhile,
    the step is tried again (and makes it again)."""
    found = find(conn, name)
    if found is None:
        raise Transient(
            f"Resource {ctx.resource_name}: {kind} {name!r} was dropped as it was made.",
            resource=ctx.resource_name,
        )
    return found


def gone(ctx: ActionContext, kind: str, name: str) -> NotFound:
    """What an update of an object dropped outside conv_tasks fails with."""
    return NotFound(
        f"Resource {ctx.resource_name}: {kind} {name!r} does not exist any more; a stack check "
        "marks the resource unhealthy, and the next update makes it again.",
        resource=ctx.resource_name,
    )
