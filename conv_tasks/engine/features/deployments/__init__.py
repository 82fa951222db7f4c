"""Software deployments (seed 002): a server's credential and metadata, its signals, and what
the stack's owner reads of them.

Credentials and input values never appear in what this folder returns; only their hashes
are stored (conv_tasks.db). It never starts a stack operation.
"""

from conv_tasks.engine.features.deployments.access import (
    check_server,
    deployment_metadata,
    server_credential,
)
from conv_tasks.engine.features.deployments.signal import (
    apply_signal,
    check_action,
    signal_deployment,
)
from conv_tasks.engine.features.deployments.views import list_deployments, show_deployment

__all__ = [
    "apply_signal",
    "check_action",
    "check_server",
    "deployment_metadata",
    "list_deployments",
    "server_credential",
    "show_deployment",
    "signal_deployment",
]
