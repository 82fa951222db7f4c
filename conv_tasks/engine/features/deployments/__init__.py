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

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.deployments",
    "conv_tasks.engine.definition",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.read",
    "conv_tasks.errors",
    "conv_tasks.limits",
    "conv_tasks.statuses",
)
MUST_NOT_IMPORT = (
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features.nested",
    "conv_tasks.engine.features.waits",
    "conv_tasks.engine.node",
    "conv_tasks.engine.upkeep",
)

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
