"""Stack operations: create, update, delete, rollback, cancel, check, suspend, resume, and how
a traversal ends.

Two faces. `TenantStacks(env, tenant)` is what users reach (the public tasks): every
stack is one of the tenant's, found by name or id. `StackControl(env)` is the engine's
own, by stack id: the end of a traversal and the rollback it starts, the watchdog's
restarts and timeouts, and a nested resource's child stacks. Both start a traversal in
one transaction and enqueue its first nodes after the commit. Update, preview and apply
share one planning step (`plan_change`). The requests users send (NewStackRequest,
ApplyRequest) are declared in conv_tasks.requests and exported here for the engine's
callers. This folder never runs a graph node and never imports conv_tasks.engine.node,
features, read or upkeep.
"""

from conv_tasks.engine.stack.apply import Applied, ApplyResult
from conv_tasks.engine.stack.changes import check_stack_name
from conv_tasks.engine.stack.completion import (
    LOST_WRITES,
    Completion,
    complete_traversal,
)
from conv_tasks.engine.stack.control import StackControl, end_traversal, resume_traversal
from conv_tasks.engine.stack.health import child_check_traversal
from conv_tasks.engine.stack.launch import Started
from conv_tasks.engine.stack.nesting import child_stack_name
from conv_tasks.engine.stack.planning import ChangeRequest, PlannedChange, plan_change
from conv_tasks.engine.stack.results import Marked, OperationResult
from conv_tasks.engine.stack.tenant import TenantStacks
from conv_tasks.requests import ApplyRequest, NewStackRequest

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine.definition",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.payload",
    "conv_tasks.errors",
    "conv_tasks.graph",
    "conv_tasks.limits",
    "conv_tasks.requests",
    "conv_tasks.resources",
    "conv_tasks.statuses",
    "conv_tasks.syncpoint",
    "conv_tasks.tags",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features",
    "conv_tasks.engine.node",
    "conv_tasks.engine.read",
    "conv_tasks.engine.upkeep",
)

__all__ = [
    "LOST_WRITES",
    "Applied",
    "ApplyRequest",
    "ApplyResult",
    "ChangeRequest",
    "Completion",
    "Marked",
    "NewStackRequest",
    "OperationResult",
    "PlannedChange",
    "StackControl",
    "Started",
    "TenantStacks",
    "check_stack_name",
    "child_check_traversal",
    "child_stack_name",
    "complete_traversal",
    "end_traversal",
    "plan_change",
    "resume_traversal",
]
