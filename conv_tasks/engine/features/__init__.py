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
