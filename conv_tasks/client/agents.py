"""What hosts and servers' agents send through a Client: a wait condition's signal, and a
software deployment's metadata, signals and credentials.

A host and an agent prove themselves with a handle's token or a server's credential, not
the tenant: those calls send no tenant.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from conv_tasks.client.sending import Sender


class AgentCalls(Sender):
    """What a Client sends for hosts and agents, and the tenant's view of deployments."""

    def signal_wait_condition(
        self, handle: str, token: str, details: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Signal a wait condition handle as a host does: with its token, not the tenant.
        `details`: {status: SUCCESS|FAILURE, reason, data, id}, each optional."""
        payload = {"handle": handle, "token": token, "details": dict(details or {})}
        return self._send("conv_tasks.wait_condition.signal", payload)

    def deployment_metadata(self, server: str, credential: str) -> dict[str, Any]:
        """The deployments waiting for `server`, as its agent reads them: with the server's
        credential, not the tenant."""
        return self._send(
            "conv_tasks.deployment.metadata", {"server": server, "credential": credential}
        )

    def signal_deployment(
        self, deployment: str, credential: str, action: str, details: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Report on a deployment's run as its server's agent does (with its credential)."""
        payload = {
            "deployment": deployment,
            "credential": credential,
            "action": action,
            "details": dict(details),
        }
        return self._send("conv_tasks.deployment.signal", payload)

    def deployment_credential(
        self, stack: str, server: str, *, rotate: bool = False
    ) -> dict[str, Any]:
        """A new credential for the agent on `server` to read its deployments of `stack` with.
        Shown once: conv_tasks keeps only its hash. Refused (Conflict) if one was issued
        before, unless `rotate`: then the old one stops working."""
        return self.call(
            "conv_tasks.deployment.credential", stack=stack, server=server, rotate=rotate
        )

    def deployments(self, stack: str) -> builtins.list[dict[str, Any]]:
        return list(self.call("conv_tasks.deployment.list", stack=stack)["deployments"])

    def deployment(self, stack: str, name: str) -> dict[str, Any]:
        """One deployment: status, its events, outputs and the ends of stdout and stderr."""
        return dict(self.call("conv_tasks.deployment.show", stack=stack, name=name)["deployment"])
