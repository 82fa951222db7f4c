"""Public tasks of the web view's reads: the stacks overview and a stack's history.

conv_tasks.stack.overview answers the stacks list page (a filtered page, and the stacks
that need attention first); conv_tasks.stack.history one page of a stack's operations. Both
are reads: they change nothing, and send no task events unless asked (conv_tasks.tasks.
public).
"""

from __future__ import annotations

import re
from typing import Any

from conv_tasks.engine import stack_history, stacks_overview
from conv_tasks.errors import Problem
from conv_tasks.limits import MAX_HISTORY_PAGE, MAX_ID, MAX_OVERVIEW_PAGE, MAX_STATUS_FILTERS
from conv_tasks.requests import Field, Limit
from conv_tasks.statuses import STATE_FILTERS, parse_state_filter
from conv_tasks.tasks.public import STACK, TENANT, public_task
from conv_tasks.tasks.runtime import engine_env
from conv_tasks.tasks.stack import tag_field

_UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
_STATES_SAID = (
    "a status (IN_PROGRESS, COMPLETE, FAILED) or a stack's state such as CREATE_COMPLETE "
    "or CHECK_FAILED"
)


def state_filter_problems(values: list[Any], path: str) -> list[Problem]:
    """What is wrong with a list of status filters given at `path`, or nothing."""
    problems: list[Problem] = []
    if len(values) > MAX_STATUS_FILTERS:
        problems.append(
            Problem(
                path,
                f"holds {len(values)} statuses; the limit is {MAX_STATUS_FILTERS} "
                "(MAX_STATUS_FILTERS)",
            )
        )
    for i, value in enumerate(values):
        if not isinstance(value, str) or parse_state_filter(value) is None:
            problems.append(Problem(f"{path}[{i}]", f"must be {_STATES_SAID}"))
    return problems


def marker_problems(value: str, path: str) -> list[Problem]:
    if re.fullmatch(_UUID, value) is None:
        return [
            Problem(
                path,
                "must be a stack id (a UUID): the `next` of the previous page, the id of its "
                "last stack",
            )
        ]
    return []


@public_task(
    "conv_tasks.stack.history",
    [
        TENANT,
        STACK,
        Field(
            "limit",
            (int,),
            default=20,
            description="The most operations to return.",
            low=1,
            high=Limit(MAX_HISTORY_PAGE, "MAX_HISTORY_PAGE"),
        ),
        Field(
            "before",
            (int,),
            description="Only operations older than this one (an operation id: the `next` "
            "of the previous page).",
            low=1,
            high=Limit(MAX_ID, "MAX_ID"),
        ),
    ],
    reads=True,
)
def history(tenant: str, stack: str, limit: int, before: int | None) -> dict[str, Any]:
    return stack_history(engine_env(), tenant, stack, limit=limit, before=before)


@public_task(
    "conv_tasks.stack.overview",
    [
        TENANT,
        Field(
            "all_tenants",
            (bool,),
            default=False,
            description="List the stacks of every tenant, not only the tenant's.",
        ),
        Field(
            "status",
            (list,),
            items=(str,),
            description="Only stacks in one of these statuses (IN_PROGRESS, COMPLETE, FAILED: "
            "of any action) or states (CREATE_COMPLETE, CHECK_FAILED, ...).",
            check=state_filter_problems,
            schema={"items": {"enum": list(STATE_FILTERS)}, "maxItems": MAX_STATUS_FILTERS},
        ),
        tag_field("tags", "Only stacks that have every one of these tags."),
        Field(
            "name",
            (str,),
            is_name=True,
            description="Only stacks whose name holds this text (case-insensitive).",
        ),
        Field(
            "limit",
            (int,),
            default=50,
            description="The most stacks on the page.",
            low=1,
            high=Limit(MAX_OVERVIEW_PAGE, "MAX_OVERVIEW_PAGE"),
        ),
        Field(
            "marker",
            (str,),
            description="The id of the last stack of the previous page (its `next`).",
            check=marker_problems,
            schema={"pattern": _UUID},
        ),
    ],
    reads=True,
)
def overview(
    tenant: str,
    all_tenants: bool,
    status: list[str] | None,
    tags: list[str] | None,
    name: str | None,
    limit: int,
    marker: str | None,
) -> dict[str, Any]:
    return stacks_overview(
        engine_env(),
        tenant,
        all_tenants=all_tenants,
        status=status,
        tags=tags,
        name=name,
        limit=limit,
        marker=None if marker is None else marker.lower(),
    )
