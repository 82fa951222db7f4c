"""A stack's template and environment (/ui/stacks/<id>/template), as conv_tasks.stack.template
answers them: hidden parameters' defaults and values masked, files by name only."""

from __future__ import annotations

from starlette.responses import Response

from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.reads import answers, ok
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import html
from conv_tasks.ui.routes import stack_path


async def template(ui: UiRequest) -> Response:
    assert ui.viewer is not None
    ref = ui.param("stack")
    found = await answers(
        ui,
        ui.viewer.stack_tenant(),
        {
            "show": ("conv_tasks.stack.show", {"stack": ref}),
            "template": ("conv_tasks.stack.template", {"stack": ref}),
        },
    )
    stack = ok(found["show"])["stack"]
    shown = ok(found["template"])
    stack_id = str(stack["id"])

    def here(*rest: str, **params: object) -> str:
        return ui.link(stack_path(stack_id, *rest), **params)

    body = render(
        "template.html",
        ui=ui,
        viewer=ui.viewer,
        stack=stack,
        here=here,
        template=shown.get("template") or {},
        environment=shown.get("environment") or {},
        files=shown.get("files") or [],
    )
    return html(body)
