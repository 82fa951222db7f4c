"""A resource's drawer (/ui/stacks/<id>/resources/<name>): what conv_tasks.resource.show
answers (properties and attributes with hidden values masked, every version, its latest
events), as a fragment htmx puts beside the table, or as a page of its own without
JavaScript."""

from __future__ import annotations

from starlette.responses import Response

from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.reads import answers, ok
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import html
from conv_tasks.ui.routes import stack_path


async def resource(ui: UiRequest) -> Response:
    assert ui.viewer is not None
    ref, name = ui.param("stack"), ui.param("resource")
    found = await answers(
        ui,
        ui.viewer.stack_tenant(),
        {"resource": ("conv_tasks.resource.show", {"stack": ref, "resource": name})},
    )
    shown = ok(found["resource"])["resource"]
    stack_id = str(shown.get("stack_id") or ref)
    context = {
        "ui": ui,
        "viewer": ui.viewer,
        "resource": shown,
        "stack_link": ui.link(stack_path(stack_id)),
        "stack_name": shown.get("stack_name", ""),
        "close_link": ui.link(stack_path(stack_id)),
    }
    if ui.htmx:
        return html(render("_resource_drawer.html", **context))
    return html(render("resource.html", **context))
