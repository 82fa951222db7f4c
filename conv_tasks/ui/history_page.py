"""A stack's history (/ui/stacks/<id>/history): one row per operation, newest first, from
conv_tasks.stack.history (a summary PostgreSQL keeps per operation, never events scanned
at read time); a failed one lists its failed resources and their reasons."""

from __future__ import annotations

from starlette.responses import Response

from conv_tasks.limits import MAX_ID
from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.reads import answers, ok
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import html
from conv_tasks.ui.routes import stack_path

PAGE_SIZE = 20


async def history(ui: UiRequest) -> Response:
    assert ui.viewer is not None
    ref = ui.param("stack")
    before = ui.query.number("before", default=0, low=1, high=MAX_ID) or None
    found = await answers(
        ui,
        ui.viewer.stack_tenant(),
        {
            "show": ("conv_tasks.stack.show", {"stack": ref, "include_deleted": True}),
            "history": (
                "conv_tasks.stack.history",
                {"stack": ref, "limit": PAGE_SIZE, "before": before},
            ),
        },
    )
    stack = ok(found["show"])["stack"]
    listed = ok(found["history"])
    stack_id = str(stack["id"])

    def here(*rest: str, **params: object) -> str:
        return ui.link(stack_path(stack_id, *rest), **params)

    older = listed.get("next")
    body = render(
        "history.html",
        ui=ui,
        viewer=ui.viewer,
        stack=stack,
        here=here,
        operations=listed.get("operations") or [],
        older_link=here("history", before=older) if older else "",
        newest_link=here("history") if before else "",
    )
    return html(body)
