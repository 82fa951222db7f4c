"""Nested stacks: the ChildStacks service the nested resource types (OS::Heat::Stack,
provider templates, groups) act through, and the hidden values a child inherits.

A child is a real stack; everything it does goes through the engine's own stack
operations (StackControl). Resource types never import this folder: they see the
ChildStacks protocol only.
"""

from conv_tasks.engine.features.nested.child_stacks import EngineChildStacks, creation_keys
from conv_tasks.engine.features.nested.inherited_secrets import PREFIX, with_inherited_secrets

__all__ = ["PREFIX", "EngineChildStacks", "creation_keys", "with_inherited_secrets"]
