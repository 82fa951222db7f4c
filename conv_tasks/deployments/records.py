"""The values a software config and a deployment are made of, as they travel and are stored.

A deployment keeps a snapshot of its config taken when an action is
published, so a config deleted or replaced afterwards changes nothing a
server is running.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# The group of a config that names no hook (Heat's default).
UNGROUPED = "Heat::Ungrouped"
# The signal transport conv_tasks implements: the conv_tasks.deployment.signal task.
CONV_TASKS_SIGNAL = "CONV_TASKS_SIGNAL"
# Heat's transports, which need services conv_tasks does not have.
HEAT_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "ZAQAR_SIGNAL", "NO_SIGNAL")
INPUT_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")


class DeployAction(StrEnum):
    """The actions a deployment can ask its server to run."""

    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    SUSPEND = "SUSPEND"  # the stack is suspended: the server runs the config if asked to
    RESUME = "RESUME"  # the stack is resumed


class DeployStatus(StrEnum):
    """Where a deployment's current action stands, as its server reports it."""

    IN_PROGRESS = "IN_PROGRESS"  # published, the server has not finished it
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


@dataclass(frozen=True)
class ConfigInput:
    name: str
    type: str = "String"
    default: Any = None
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "description": self.description,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ConfigInput:
        return cls(
            name=str(data["name"]),
            type=str(data.get("type") or "String"),
            default=data.get("default"),
            description=str(data.get("description") or ""),
        )


@dataclass(frozen=True)
class ConfigOutput:
    name: str
    type: str = "String"
    description: str = ""
    error_output: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "description": self.description,
            "error_output": self.error_output,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ConfigOutput:
        return cls(
            name=str(data["name"]),
            type=str(data.get("type") or "String"),
            description=str(data.get("description") or ""),
            error_output=bool(data.get("error_output")),
        )


@dataclass(frozen=True)
class SoftwareConfig:
    """What a server runs: a document for the hook named by `group`."""

    id: str
    name: str = ""
    group: str = UNGROUPED
    config: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    inputs: tuple[ConfigInput, ...] = ()
    outputs: tuple[ConfigOutput, ...] = ()

    @classmethod
    def from_properties(cls, config_id: str, name: str, props: Mapping[str, Any]) -> SoftwareConfig:
        """From OS::Heat::SoftwareConfig properties, as prepared against its schema."""
        return cls(
            id=config_id,
            name=name,
            group=props.get("group") or UNGROUPED,
            config=props.get("config") or "",
            options=dict(props.get("options") or {}),
            inputs=tuple(ConfigInput.from_json(i) for i in props.get("inputs") or ()),
            outputs=tuple(ConfigOutput.from_json(o) for o in props.get("outputs") or ()),
        )

    @classmethod
    def empty(cls) -> SoftwareConfig:
        """The config of a deployment that names none: the server gets its inputs only."""
        return cls(id="")


@dataclass(frozen=True)
class DeploymentAction:
    """One action of a deployment, as its resource publishes it for the server."""

    id: str
    stack_id: str
    resource_name: str
    server: str
    name: str
    config: SoftwareConfig
    input_values: Mapping[str, Any]
    action: DeployAction
    # The resource action's idempotency token: publishing with the same token again (a step
    # run again after a crash) leaves the deployment as it stands.
    token: str
    # False when the action is not among the deployment's `actions`: the snapshot is kept but
    # nothing is asked of the server.
    awaited: bool = True
    signal_transport: str = CONV_TASKS_SIGNAL


@dataclass(frozen=True)
class DeploymentState:
    """How a deployment stands, as its resource reads it back."""

    id: str
    action: str
    token: str
    status: str
    status_reason: str
    outputs: Mapping[str, Any]
    # Whether the server ever signalled this deployment (it has run something of it).
    server_ran: bool
    output_names: tuple[str, ...] = ()
