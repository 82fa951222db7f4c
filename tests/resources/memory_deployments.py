"""An in-memory DeploymentStore for the software config and deployment unit tests."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from conv_tasks.deployments.records import (
    DeploymentAction,
    DeploymentState,
    DeployStatus,
    SoftwareConfig,
)


@dataclass
class MemoryDeployments:
    """Keeps configs and deployments in dicts, with the real store's rules for tokens."""

    configs: dict[str, SoftwareConfig] = field(default_factory=dict)
    states: dict[str, DeploymentState] = field(default_factory=dict)
    published: list[DeploymentAction] = field(default_factory=list)

    def save_config(self, stack_id: str, config: SoftwareConfig) -> None:
        self.configs.setdefault(config.id, config)

    def config(self, stack_id: str, config_id: str) -> SoftwareConfig | None:
        return self.configs.get(config_id)

    def delete_config(self, config_id: str) -> None:
        self.configs.pop(config_id, None)

    def publish(self, action: DeploymentAction) -> DeploymentState:
        found = self.states.get(action.id)
        if found is not None and found.token == action.token:
            return found
        self.published.append(action)
        state = DeploymentState(
            id=action.id,
            action=action.action.value,
            token=action.token,
            status=DeployStatus.IN_PROGRESS if action.awaited else DeployStatus.COMPLETE,
            status_reason="",
            outputs=found.outputs if found is not None else {},
            server_ran=found.server_ran if found is not None else False,
            output_names=tuple(o.name for o in action.config.outputs),
        )
        self.states[action.id] = state
        return state

    def publish_delete(self, deployment_id: str, token: str) -> DeploymentState | None:
        found = self.states.get(deployment_id)
        if found is None:
            return None
        again = found.action == "DELETE" and found.status == DeployStatus.FAILED
        if found.token != token or again:
            found = replace(found, action="DELETE", token=token, status=DeployStatus.IN_PROGRESS)
            self.states[deployment_id] = found
        return found

    def state(self, deployment_id: str) -> DeploymentState | None:
        return self.states.get(deployment_id)

    def stop(self, deployment_id: str, token: str, reason: str) -> None:
        found = self.states.get(deployment_id)
        if found is not None and found.token == token and found.status == "IN_PROGRESS":
            self.states[deployment_id] = replace(
                found, status=DeployStatus.FAILED, status_reason=reason
            )

    def remove(self, deployment_id: str) -> None:
        self.states.pop(deployment_id, None)

    def server_signals(self, deployment_id: str, status: str, **fields: Any) -> None:
        """What a signal applied by the engine leaves behind."""
        self.states[deployment_id] = replace(
            self.states[deployment_id], status=status, server_ran=True, **fields
        )
