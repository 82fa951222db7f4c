"""The stacks overview's reads: one page of live stacks, those that need attention, counts.

Built to stay fast with 10,000 stacks and more: a page is a keyset walk down the
(tenant, updated_at, id) index (`ix_stack_tenant_live_recent`, or `ix_stack_live_recent`
across tenants) under a LIMIT; the attention list is capped the same way; the resource
counts are read for the stacks shown only, in one grouped statement. Whether a stack needs
attention is decided here, in SQL, by one expression both the page and the attention list
use, so the two always agree:

- "failed": its operation FAILED (CHECK_FAILED: "check-failed");
- "watchdog": in progress, and the watchdog restarted its current operation;
- "past-half-timeout": in progress for more than half of its timeout_mins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Interval,
    and_,
    case,
    func,
    literal_column,
    or_,
    select,
    tuple_,
)
from sqlalchemy.orm import Session

from conv_tasks.db.models import Resource, Stack, StackOperation
from conv_tasks.db.rows import StackRow, stack_row
from conv_tasks.statuses import Action, OperationOutcome, Status


@dataclass(frozen=True)
class OverviewFilter:
    """Which live stacks the overview shows: of `tenant` (None: of every tenant), whose
    status is one of `statuses` or whose (action, status) one of `states` (neither: any),
    having every tag of `tags`, whose name holds `name` (case-insensitive)."""

    tenant: str | None
    statuses: tuple[str, ...] = ()
    states: tuple[tuple[str, str], ...] = ()
    tags: tuple[str, ...] = ()
    name: str | None = None


@dataclass(frozen=True)
class OverviewEntry:
    """A stack as the overview shows it: its row, why it needs attention (or None), the
    restarts of its operation in progress, and PostgreSQL's clock as it was read."""

    stack: StackRow
    attention: str | None
    watchdog_restarts: int
    now: datetime


def _restarts() -> Any:
    """The watchdog restarts of the stack's operation in progress (its newest row)."""
    return (
        select(StackOperation.watchdog_restarts)
        .where(
            StackOperation.stack_id == Stack.id,
            StackOperation.result == str(OperationOutcome.IN_PROGRESS),
        )
        .order_by(StackOperation.id.desc())
        .limit(1)
        .correlate(Stack)
        .scalar_subquery()
    )


def _attention(restarts: Any) -> ColumnElement[Any]:
    in_progress = Stack.status == str(Status.IN_PROGRESS)
    half_timeout = literal_column("interval '30 seconds'", Interval) * Stack.timeout_mins
    return case(
        (
            and_(Stack.status == str(Status.FAILED), Stack.action == str(Action.CHECK)),
            "check-failed",
        ),
        (Stack.status == str(Status.FAILED), "failed"),
        (and_(in_progress, func.coalesce(restarts, 0) > 0), "watchdog"),
        (
            and_(
                in_progress,
                Stack.timeout_mins.is_not(None),
                Stack.operation_started_at + half_timeout < func.now(),
            ),
            "past-half-timeout",
        ),
        else_=None,
    )


# The most urgent first: what failed, then what stalls, then what may time out.
_URGENCY = {"failed": 0, "check-failed": 1, "watchdog": 2, "past-half-timeout": 3}


def _conditions(chosen: OverviewFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [Stack.deleted_at.is_(None)]
    if chosen.tenant is not None:
        conditions.append(Stack.tenant == chosen.tenant)
    matches: list[ColumnElement[bool]] = []
    if chosen.statuses:
        matches.append(Stack.status.in_(chosen.statuses))
    if chosen.states:
        matches.append(tuple_(Stack.action, Stack.status).in_(chosen.states))
    if matches:
        conditions.append(or_(*matches))
    if chosen.tags:
        conditions.append(Stack.tags.contains(list(chosen.tags)))
    if chosen.name:
        conditions.append(Stack.name.icontains(chosen.name, autoescape=True))
    return conditions


class Overview:
    """The overview's statements, in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def _entries(self, stmt: Any) -> list[OverviewEntry]:
        entries = []
        for row in self._session.execute(stmt):
            stack, attention, restarts, now = row
            entries.append(OverviewEntry(stack_row(stack), attention, int(restarts or 0), now))
        return entries

    def position(self, stack_id: str, tenant: str | None) -> tuple[datetime, str] | None:
        """Where a page that ended with `stack_id` ended (its updated_at and id), deleted or
        not; None if there is no such stack (of `tenant`, when given)."""
        stmt = select(Stack.updated_at, Stack.id).where(Stack.id == stack_id)
        if tenant is not None:
            stmt = stmt.where(Stack.tenant == tenant)
        found = self._session.execute(stmt).first()
        return None if found is None else (found[0], found[1])

    def page(
        self, chosen: OverviewFilter, *, limit: int, after: tuple[datetime, str] | None
    ) -> list[OverviewEntry]:
        """Up to `limit` stacks the filter keeps, newest first (updated_at, then id, both
        descending), after the position `after` of the previous page's last stack."""
        restarts = _restarts()
        stmt = select(Stack, _attention(restarts), restarts, func.now()).where(*_conditions(chosen))
        if after is not None:
            stmt = stmt.where(tuple_(Stack.updated_at, Stack.id) < tuple_(*after))
        stmt = stmt.order_by(Stack.updated_at.desc(), Stack.id.desc()).limit(limit)
        return self._entries(stmt)

    def count(self, chosen: OverviewFilter) -> int:
        """How many stacks the filter keeps."""
        stmt = select(func.count()).select_from(Stack).where(*_conditions(chosen))
        return int(self._session.execute(stmt).scalar_one())

    def needing_attention(
        self, chosen: OverviewFilter, *, limit: int
    ) -> tuple[list[OverviewEntry], int]:
        """The stacks the filter keeps that need attention, most urgent first (then newest),
        at most `limit`; and how many there are in all."""
        restarts = _restarts()
        attention = _attention(restarts)
        # Only failed and in-progress stacks can need attention: ix_stack_status finds them.
        inner = (
            select(
                Stack.id.label("id"),
                attention.label("attention"),
                restarts.label("restarts"),
            )
            .where(
                *_conditions(chosen),
                Stack.status.in_((str(Status.FAILED), str(Status.IN_PROGRESS))),
            )
            .subquery()
        )
        urgency = case(_URGENCY, value=inner.c.attention, else_=len(_URGENCY))
        stmt = (
            select(Stack, inner.c.attention, inner.c.restarts, func.now())
            .join(inner, inner.c.id == Stack.id)
            .where(inner.c.attention.is_not(None))
            .order_by(urgency, Stack.updated_at.desc(), Stack.id.desc())
            .limit(limit)
        )
        total_stmt = select(func.count()).select_from(inner).where(inner.c.attention.is_not(None))
        total = int(self._session.execute(total_stmt).scalar_one())
        return (self._entries(stmt) if total else []), total

    def resource_counts(self, stack_ids: Sequence[str]) -> dict[str, dict[str, int]]:
        """Per stack, how many of its resources' head versions are in each state
        ("CREATE_COMPLETE": 3, ...): one grouped statement for all of `stack_ids`."""
        if not stack_ids:
            return {}
        stmt = (
            select(Resource.stack_id, Resource.action, Resource.status, func.count())
            .where(Resource.stack_id.in_(list(stack_ids)), Resource.replaced_by.is_(None))
            .group_by(Resource.stack_id, Resource.action, Resource.status)
        )
        counts: dict[str, dict[str, int]] = {}
        for stack_id, action, status, n in self._session.execute(stmt):
            counts.setdefault(stack_id, {})[f"{action}_{status}"] = int(n)
        return counts
