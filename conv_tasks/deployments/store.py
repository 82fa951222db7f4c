"""What the software config and deployment resource types need from storage.

A plugin never opens a connection: it is handed an implementation of this
(conv_tasks.db.deployments.PostgresDeployments in a worker, a dict in unit
tests) in its ActionContext, as TestResource is handed a Sandbox.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from conv_tasks.deployments.records import DeploymentAction, DeploymentState, SoftwareConfig


@runtime_checkable
class DeploymentStore(Protocol):
    def save_config(self, stack_id: str, config: SoftwareConfig) -> None:
        """Keep a config (once: saving the same id again changes nothing)."""
        ...

    def config(self, stack_id: str, config_id: str) -> SoftwareConfig | None:
        """A config of the stack's tenant, or None."""
        ...

    def delete_config(self, config_id: str) -> None: ...

    def publish(self, action: DeploymentAction) -> DeploymentState:
        """Make the action the deployment's current one (awaited: pending for its server).
        The same token again leaves the deployment as it stands and returns its state."""
        ...

    def publish_delete(self, deployment_id: str, token: str) -> DeploymentState | None:
        """Ask the server to run DELETE, keeping the config and inputs last published; the
        same token again leaves it as it stands, unless that DELETE failed. None if the
        deployment is gone."""
        ...

    def state(self, deployment_id: str) -> DeploymentState | None: ...

    def stop(self, deployment_id: str, token: str, reason: str) -> None:
        """End the action published with `token`, if it still waits: FAILED with `reason`."""
        ...

    def remove(self, deployment_id: str) -> None: ...
