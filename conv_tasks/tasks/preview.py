"""Public task conv_tasks.stack.preview: what an update (or a create) would do, doing nothing.

Kept apart from conv_tasks.stack.update (no `dry_run` flag there): a caller retrying a
mutation must never be one flag away from a preview, nor a preview from a mutation.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import preview_stack
from conv_tasks.requests import PreviewRequest, field_names
from conv_tasks.tasks.public import request_task
from conv_tasks.tasks.runtime import engine_env

# preview_stack takes the request's fields by their names, the stack as `stack_ref`.
_CHANGE = sorted(field_names(PreviewRequest) - {"stack"})


@request_task(PreviewRequest)
def preview(tenant: str, request: PreviewRequest) -> dict[str, Any]:
    change = {name: getattr(request, name) for name in _CHANGE}
    return preview_stack(engine_env(), tenant=tenant, stack_ref=request.stack, **change)
