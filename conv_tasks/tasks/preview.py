"""Public task conv_tasks.stack.preview: what an update (or a create) would do, doing nothing.

Kept apart from conv_tasks.stack.update (no `dry_run` flag there): a caller retrying a
mutation must never be one flag away from a preview, nor a preview from a mutation.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import preview_stack
from conv_tasks.tasks.payload_fields import Field
from conv_tasks.tasks.public import STACK, TENANT, public_task
from conv_tasks.tasks.runtime import engine_env
from conv_tasks.tasks.stack import ENVIRONMENT, FILES, TEMPLATE_BYTES


@public_task(
    "conv_tasks.stack.preview",
    [
        TENANT,
        STACK,
        Field("template", (dict, str), max_bytes=TEMPLATE_BYTES),
        Field("parameters", (dict,), default={}),
        ENVIRONMENT,
        FILES,
        Field("existing_parameters", (bool,), default=False),
    ],
)
def preview(**args: Any) -> dict[str, Any]:
    stack_ref = args.pop("stack")
    return preview_stack(engine_env(), stack_ref=stack_ref, **args)
