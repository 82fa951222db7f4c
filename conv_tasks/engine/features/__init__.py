"""Features built on stacks: nested stacks, software deployments, wait conditions, and the
signals a stack's owner sends to its resources.

Each feature is a folder of its own with a face. A feature may use the stack operations
(conv_tasks.engine.stack) and the read models (read); nothing below it (stack, node,
definition, read) may import a feature: the node path reaches nested stacks only through
the environment's `children` service.
"""

from conv_tasks.engine.features.deployments import (
    deployment_metadata,
    list_deployments,
    server_credential,
    show_deployment,
    signal_deployment,
)
from conv_tasks.engine.features.nested import EngineChildStacks
from conv_tasks.engine.features.owner_signal import signal_resource
from conv_tasks.engine.features.waits import signal_handle

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.deployments",
    "conv_tasks.engine.definition",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.payload",
    "conv_tasks.engine.read",
    "conv_tasks.engine.stack",
    "conv_tasks.errors",
    "conv_tasks.limits",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.statuses",
    "conv_tasks.template",
    "conv_tasks.waitconditions",
)
MUST_NOT_IMPORT = (
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.upkeep",
    "conv_tasks.syncpoint",
)
# Highest first: the features are independent of each other; the owner's signals use two.
LAYERS = (
    ("conv_tasks.engine.features.owner_signal",),
    (
        "conv_tasks.engine.features.deployments",
        "conv_tasks.engine.features.nested",
        "conv_tasks.engine.features.waits",
    ),
)

__all__ = [
    "EngineChildStacks",
    "deployment_metadata",
    "list_deployments",
    "server_credential",
    "show_deployment",
    "signal_deployment",
    "signal_handle",
    "signal_resource",
]
