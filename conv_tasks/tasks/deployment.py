"""Public software-deployment tasks: for servers' agents and for the stacks' owners.

Agents call `metadata` and `signal`, authenticated by credentials instead of
a tenant; owners call `credential`, `list` and `show` with their tenant.
Results are JSON objects, as for the stack tasks: {"ok": true, ...}, or
{"ok": false, "error": code, "message": ...} when refused (nothing changed).
These tasks run on SecretTask: no credential shows in task events or logs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from conv_tasks.engine import deployment_access, deployment_signal, deployment_views
from conv_tasks.errors import ConvTasksError
from conv_tasks.tasks.app import app
from conv_tasks.tasks.payloads import Field, parse_payload
from conv_tasks.tasks.secret_task import SecretTask

log = logging.getLogger(__name__)

TENANT = Field("tenant", (str,), required=True)
STACK = Field("stack", (str,), required=True)
SERVER = Field("server", (str,), required=True)
CREDENTIAL = Field("credential", (str,), required=True)


def _public(name: str, fields: list[Field]) -> Callable[[Callable[..., dict[str, Any]]], Any]:
    """Register a public task on SecretTask that validates its payload and turns refusals into
    JSON (as conv_tasks.tasks.stack does for the stack tasks)."""

    def decorate(func: Callable[..., Any]) -> Any:
        @wraps(func)
        def run(**payload: Any) -> dict[str, Any]:
            try:
                args = parse_payload(name, payload, fields)
                result = func(**args)
            except ConvTasksError as exc:
                log.info("%s refused: %s", name, exc)
                return {"ok": False, **exc.to_dict()}
            return {"ok": True, **result}

        return app.task(name=name, acks_late=False, base=SecretTask)(run)

    return decorate


@_public("conv_tasks.deployment.metadata", [SERVER, CREDENTIAL])
def metadata(server: str, credential: str) -> dict[str, Any]:
    return deployment_access.deployment_metadata(server, credential)


@_public(
    "conv_tasks.deployment.signal",
    [
        Field("deployment", (str,), required=True),
        CREDENTIAL,
        Field("action", (str,), required=True),
        Field("details", (dict,), default={}),
    ],
)
def signal(
    deployment: str, credential: str, action: str, details: dict[str, Any]
) -> dict[str, Any]:
    return deployment_signal.signal_deployment(deployment, credential, action, details)


@_public(
    "conv_tasks.deployment.credential",
    [TENANT, STACK, SERVER, Field("rotate", (bool,), default=False)],
)
def credential(tenant: str, stack: str, server: str, rotate: bool) -> dict[str, Any]:
    return deployment_access.server_credential(tenant, stack, server, rotate=rotate)


@_public("conv_tasks.deployment.list", [TENANT, STACK])
def list_(tenant: str, stack: str) -> dict[str, Any]:
    return {"deployments": deployment_views.list_deployments(tenant, stack)}


@_public("conv_tasks.deployment.show", [TENANT, STACK, Field("name", (str,), required=True)])
def show(tenant: str, stack: str, name: str) -> dict[str, Any]:
    return {"deployment": deployment_views.show_deployment(tenant, stack, name)}
