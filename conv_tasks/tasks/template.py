"""Public template tasks: conv_tasks.template.validate.

Validation reads nothing and changes nothing: the result is the same whether or not the
template would be refused ({"ok": true, "valid": false, "errors": [...]}); only a payload
that is not a request at all is refused.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import validate_template
from conv_tasks.tasks.payload_fields import Field
from conv_tasks.tasks.public import TENANT, public_task
from conv_tasks.tasks.runtime import engine_env
from conv_tasks.tasks.stack import ENVIRONMENT, FILES, TEMPLATE_BYTES


@public_task(
    "conv_tasks.template.validate",
    [
        TENANT,
        Field("template", (dict, str), required=True, max_bytes=TEMPLATE_BYTES),
        Field("parameters", (dict,), default={}),
        ENVIRONMENT,
        FILES,
    ],
)
def validate(
    tenant: str,
    template: dict[str, Any] | str,
    parameters: dict[str, Any],
    environment: list[Any],
    files: dict[str, Any],
) -> dict:
    return validate_template(
        template,
        parameters,
        environment=environment,
        files=files,
        constraints=engine_env().constraints,
    )
