"""The stacks list (/ui/): Needs attention first, then the filtered page of stacks.

One call to conv_tasks.stack.overview answers both parts: it keeps the list fast with
10,000 stacks (SQL limit, keyset pagination by marker, counts for the page's stacks only).
"""

from __future__ import annotations

from datetime import UTC, datetime

from starlette.responses import Response

from conv_tasks.statuses import STATE_FILTERS
from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import html
from conv_tasks.ui.routes import stack_path

PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# What the status filter takes: a bare status matches it after any action.
STATUS_FILTERS: tuple[str, ...] = tuple(STATE_FILTERS)


async def stacks(ui: UiRequest) -> Response:
    assert ui.viewer is not None
    statuses = ui.query.choices("status", STATUS_FILTERS)
    tags = ui.query.names("tag")
    name = ui.query.text("name")
    marker = ui.query.name("marker")
    limit = ui.query.number("limit", default=PAGE_SIZE, low=1, high=MAX_PAGE_SIZE)
    every_tenant = ui.viewer.operator and not ui.viewer.tenant
    answer = await ui.task(
        "conv_tasks.stack.overview",
        tenant=ui.viewer.tenant or ui.viewer.signed_in_as,
        all_tenants=True if every_tenant else None,
        status=statuses or None,
        tags=tags or None,
        name=name or None,
        limit=limit,
        marker=marker or None,
    )
    filters = {
        "status": statuses,
        "tag": tags,
        "name": name,
        "limit": limit if limit != PAGE_SIZE else None,
    }

    def stack_link(summary: dict[str, object]) -> str:
        return ui.tenant_link(stack_path(str(summary["id"])), str(summary["tenant"]))

    next_marker = answer.get("next")
    body = render(
        "stacks.html",
        ui=ui,
        viewer=ui.viewer,
        every_tenant=every_tenant,
        attention=answer.get("attention") or [] if not marker else [],
        attention_total=int(answer.get("attention_total") or 0),
        stacks=answer.get("stacks") or [],
        total=int(answer.get("total") or 0),
        first_page=not marker,
        next_link=ui.link("/ui/", **filters, marker=next_marker) if next_marker else "",
        first_link=ui.link("/ui/", **filters),
        filters=filters,
        status_filters=STATUS_FILTERS,
        stack_link=stack_link,
        now=datetime.now(UTC),
    )
    return html(body)
