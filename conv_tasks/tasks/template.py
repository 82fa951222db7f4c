"""Public template tasks: conv_tasks.template.validate.

Validation reads nothing and changes nothing: the result is the same whether or not the
template would be refused ({"ok": true, "valid": false, "errors": [...]}); only a payload
that is not a request at all is refused.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import validate_template
from conv_tasks.requests import ValidateRequest
from conv_tasks.tasks.public import request_task
from conv_tasks.tasks.runtime import engine_env


@request_task(ValidateRequest)
def validate(tenant: str, request: ValidateRequest) -> dict[str, Any]:
    return validate_template(
        request.template,
        request.parameters,
        environment=request.environment,
        files=request.files,
        constraints=engine_env().constraints,
    )
