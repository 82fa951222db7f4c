"""Nested stacks: the ChildStacks service the nested resource types (OS::Heat::Stack,
provider templates, groups) act through, and the hidden values a child inherits.

A child is a real stack; everything it does goes through the engine's own stack
operations (StackControl). Resource types never import this folder: they see the
ChildStacks protocol only.
"""

from conv_tasks.engine.features.nested.child_stacks import EngineChildStacks, creation_keys
from conv_tasks.engine.features.nested.inherited_secrets import PREFIX, with_inherited_secrets

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.payload",
    "conv_tasks.engine.read",
    "conv_tasks.engine.stack",
    "conv_tasks.errors",
    "conv_tasks.sdk",
    "conv_tasks.statuses",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features.deployments",
    "conv_tasks.engine.features.waits",
    "conv_tasks.engine.node",
    "conv_tasks.engine.upkeep",
)

__all__ = ["PREFIX", "EngineChildStacks", "creation_keys", "with_inherited_secrets"]
