"""Public software-deployment tasks: for servers' agents and for the stacks' owners.

Agents call `metadata` and `signal`, authenticated by credentials instead of
a tenant; owners call `credential`, `list` and `show` with their tenant.
Results are JSON objects, as for the stack tasks: {"ok": true, ...}, or
{"ok": false, "error": code, "message": ...} when refused (nothing changed).
These tasks run on ResultHiddenTask: no credential shows in task events or logs, neither
in their arguments (conv_tasks.tasks.request) nor in their results.
"""

from __future__ import annotations

from typing import Any

from conv_tasks import engine
from conv_tasks.requests import Field
from conv_tasks.tasks.public import STACK, TENANT, public_task
from conv_tasks.tasks.request import ResultHiddenTask
from conv_tasks.tasks.runtime import engine_env

SERVER = Field("server", (str,), required=True, is_name=True)
CREDENTIAL = Field("credential", (str,), required=True, is_name=True)


@public_task("conv_tasks.deployment.metadata", [SERVER, CREDENTIAL], base=ResultHiddenTask)
def metadata(server: str, credential: str) -> dict[str, Any]:
    return engine.deployment_metadata(engine_env(), server, credential)


@public_task(
    "conv_tasks.deployment.signal",
    [
        Field("deployment", (str,), required=True, is_name=True),
        CREDENTIAL,
        Field("action", (str,), required=True, is_name=True),
        Field("details", (dict,), default={}),
    ],
    base=ResultHiddenTask,
)
def signal(
    deployment: str, credential: str, action: str, details: dict[str, Any]
) -> dict[str, Any]:
    return engine.signal_deployment(engine_env(), deployment, credential, action, details)


@public_task(
    "conv_tasks.deployment.credential",
    [TENANT, STACK, SERVER, Field("rotate", (bool,), default=False)],
    base=ResultHiddenTask,
)
def credential(tenant: str, stack: str, server: str, rotate: bool) -> dict[str, Any]:
    return engine.server_credential(engine_env(), tenant, stack, server, rotate=rotate)


@public_task("conv_tasks.deployment.list", [TENANT, STACK], base=ResultHiddenTask, reads=True)
def list_(tenant: str, stack: str) -> dict[str, Any]:
    return {"deployments": engine.list_deployments(engine_env(), tenant, stack)}


@public_task(
    "conv_tasks.deployment.show",
    [TENANT, STACK, Field("name", (str,), required=True, is_name=True)],
    base=ResultHiddenTask,
    reads=True,
)
def show(tenant: str, stack: str, name: str) -> dict[str, Any]:
    return {"deployment": engine.show_deployment(engine_env(), tenant, stack, name)}
