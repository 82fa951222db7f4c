"""Public tasks of the web view's reads: the stacks overview and a stack's history.

conv_tasks.stack.overview answers the stacks list page (a filtered page, and the stacks
that need attention first; its request is declared in conv_tasks.requests);
conv_tasks.stack.history one page of a stack's operations. Both are reads: they change
nothing, and send no task events unless asked (conv_tasks.tasks.public).
"""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import stack_history, stacks_overview
from conv_tasks.limits import MAX_HISTORY_PAGE, MAX_ID
from conv_tasks.requests import Field, Limit, OverviewRequest
from conv_tasks.tasks.public import STACK, TENANT, public_task, request_task
from conv_tasks.tasks.runtime import engine_env


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


@request_task(OverviewRequest, reads=True)
def overview(tenant: str, request: OverviewRequest) -> dict[str, Any]:
    return stacks_overview(
        engine_env(),
        tenant,
        all_tenants=request.all_tenants,
        status=request.status,
        tags=request.tags,
        name=request.name,
        limit=request.limit,
        marker=None if request.marker is None else request.marker.lower(),
    )
