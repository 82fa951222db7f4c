"""What a server's agent is told about one of its deployments.

The config's declared inputs get their values from the deployment's
input_values (or their defaults); input values the config does not declare
are passed too, as strings, as Heat does. Then come the inputs the engine
adds, `deploy_*`, among them the deployment's own signal credential and
`deploy_status_aware: true`, which tells a seed-002 agent that it may signal
IN_PROGRESS before it runs the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from conv_tasks.deployments.records import CONV_TASKS_SIGNAL, SoftwareConfig

SIGNAL_CREDENTIAL = "deploy_signal_credential"


@dataclass(frozen=True)
class PublishedAction:
    """A deployment's action as stored, everything the agent is sent about it."""

    id: str
    stack_id: str
    resource_name: str
    server: str
    name: str
    config: SoftwareConfig
    input_values: Mapping[str, Any]
    action: str
    updated_time: datetime
    # The resource action's idempotency token: which run of the action this is.
    run: str = ""


def engine_inputs(action: PublishedAction, signal_credential: str) -> list[dict[str, Any]]:
    """The inputs conv_tasks adds to every deployment."""
    values: list[tuple[str, str, Any, str]] = [
        ("deploy_server_id", "String", action.server, "ID of the server being deployed to"),
        ("deploy_action", "String", action.action, "Name of the current action being deployed"),
        ("deploy_stack_id", "String", action.stack_id, "ID of the stack this deployment is in"),
        (
            "deploy_resource_name",
            "String",
            action.resource_name,
            "Name of this deployment resource in the stack",
        ),
        (
            "deploy_signal_transport",
            "String",
            CONV_TASKS_SIGNAL,
            "How the server signals its outputs: the conv_tasks.deployment.signal task",
        ),
        ("deploy_signal_id", "String", action.id, "The deployment to name in the signal"),
        (
            SIGNAL_CREDENTIAL,
            "String",
            signal_credential,
            "The credential the signal must carry",
        ),
        (
            "deploy_status_aware",
            "Boolean",
            True,
            "The server may signal IN_PROGRESS before it runs the config",
        ),
    ]
    return [
        {"name": name, "type": kind, "value": value, "description": description}
        for name, kind, value, description in values
    ]


def deployment_inputs(action: PublishedAction, signal_credential: str) -> list[dict[str, Any]]:
    """Every input of the action, declared ones first, the engine's last."""
    added = engine_inputs(action, signal_credential)
    reserved = {entry["name"] for entry in added}
    # The engine's own inputs win over values a template gives under the same names.
    given = {k: v for k, v in action.input_values.items() if k not in reserved}
    inputs: list[dict[str, Any]] = []
    for declared in action.config.inputs:
        if declared.name in reserved:
            continue
        value = given.pop(declared.name, declared.default)
        inputs.append(
            {
                "name": declared.name,
                "type": declared.type,
                "value": value,
                "description": declared.description,
            }
        )
    for name in sorted(given):
        inputs.append({"name": name, "type": "String", "value": given[name], "description": ""})
    return inputs + added


def metadata_entry(action: PublishedAction, signal_credential: str) -> dict[str, Any]:
    """One deployment as conv_tasks.deployment.metadata returns it."""
    config = action.config
    return {
        "id": action.id,
        "name": action.name,
        "group": config.group,
        "config": config.config,
        "options": dict(config.options),
        "action": action.action,
        "inputs": deployment_inputs(action, signal_credential),
        "outputs": [output.to_json() for output in config.outputs],
        "updated_time": action.updated_time.isoformat(),
    }
