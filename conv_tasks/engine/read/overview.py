"""The stacks overview (the web view's stacks list): a page of stacks, and those that need
attention first, as JSON-able dicts.

Every query is bounded (conv_tasks.db.overview): a keyset page under a LIMIT, the attention
list capped at ATTENTION_SHOWN, resource counts for the stacks shown only. The marker of a
page is the id of the last stack of the previous one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from conv_tasks.db import OverviewEntry, OverviewFilter
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.read.history import one_line
from conv_tasks.engine.read.views import iso_time
from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.statuses import Status, parse_state_filter

ATTENTION_SHOWN = 50
STATUS_REASON_SHOWN = 300


def overview_filter(
    tenant: str | None,
    *,
    status: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    name: str | None = None,
) -> OverviewFilter:
    """The filter of the overview's payload; InvalidInput naming a status filter value that
    is neither a status nor a stack state."""
    statuses: list[str] = []
    states: list[tuple[str, str]] = []
    problems = []
    for i, value in enumerate(status or ()):
        parsed = parse_state_filter(value)
        if parsed is None:
            problems.append(Problem(f"status[{i}]", f"is not a status or state: {value!r}"))
        elif parsed[0] is None:
            statuses.append(parsed[1])
        else:
            states.append((parsed[0], parsed[1]))
    if problems:
        raise InvalidInput(problems)
    return OverviewFilter(
        tenant=tenant,
        statuses=tuple(dict.fromkeys(statuses)),
        states=tuple(dict.fromkeys(states)),
        tags=tuple(dict.fromkeys(tags or ())),
        name=name or None,
    )


def stack_entry(entry: OverviewEntry, resource_counts: Mapping[str, int]) -> dict[str, Any]:
    stack = entry.stack
    started = stack.operation_started_at
    running = stack.status == Status.IN_PROGRESS and started is not None
    deadline = (
        started + timedelta(minutes=stack.timeout_mins)
        if running and started is not None and stack.timeout_mins
        else None
    )
    elapsed = (entry.now - started).total_seconds() if running and started is not None else None
    return {
        "id": stack.id,
        "name": stack.name,
        "tenant": stack.tenant,
        "action": stack.action,
        "status": stack.status,
        "state": stack.state,
        "status_reason": one_line(stack.status_reason, STATUS_REASON_SHOWN),
        "tags": list(stack.tags),
        "created_at": iso_time(stack.created_at),
        "updated_at": iso_time(stack.updated_at),
        "timeout_mins": stack.timeout_mins,
        "operation": {
            "started_at": iso_time(started),
            "elapsed_secs": None if elapsed is None else max(0.0, elapsed),
            "deadline": iso_time(deadline),
        },
        "resource_counts": dict(sorted(resource_counts.items())),
        "attention": entry.attention,
        "parent": stack.parent_stack_id,
    }


def stacks_overview(
    env: EngineEnv,
    tenant: str,
    *,
    all_tenants: bool = False,
    status: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    name: str | None = None,
    limit: int = 50,
    marker: str | None = None,
) -> dict[str, Any]:
    """{"attention", "attention_total", "stacks", "next", "total"}: the live stacks the
    filters keep (of `tenant`, or of every tenant), up to `limit` of them after the stack
    `marker`, newest first, and, first, those of them that need attention (at most
    ATTENTION_SHOWN, the most urgent first)."""
    chosen = overview_filter(None if all_tenants else tenant, status=status, tags=tags, name=name)
    with env.db.transaction() as tx:
        after = None
        if marker is not None:
            after = tx.overview.position(marker, chosen.tenant)
            if after is None:
                raise InvalidInput(
                    [
                        Problem(
                            "marker",
                            f"names no stack: {marker!r} (give the id of the last stack of "
                            "the previous page, as its `next` said)",
                        )
                    ]
                )
        page = tx.overview.page(chosen, limit=limit + 1, after=after)
        attention, attention_total = tx.overview.needing_attention(chosen, limit=ATTENTION_SHOWN)
        total = tx.overview.count(chosen)
        shown = page[:limit]
        ids = sorted({entry.stack.id for entry in [*shown, *attention]})
        counts = tx.overview.resource_counts(ids)
    return {
        "attention": [stack_entry(e, counts.get(e.stack.id, {})) for e in attention],
        "attention_total": attention_total,
        "stacks": [stack_entry(e, counts.get(e.stack.id, {})) for e in shown],
        "next": shown[-1].stack.id if len(page) > limit else None,
        "total": total,
    }
