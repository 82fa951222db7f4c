"""Graph nodes: one delivery of a node task converges, cleans up or checks one resource.

claim (one statement) → decide (pure) → act through the resource's plugin → write (one
statement) → hand on (one Redis call). Everything a node needs comes in its environment;
the end of a traversal is the environment's `end_traversal` callback. This folder must
never import conv_tasks.engine.stack (or anything above it): it knows nothing of stack
operations, and it never starts one.
"""

from conv_tasks.engine.node.actions import (
    BACKOFF_LAST,
    StepResult,
    leftover_context,
    masked,
    observing_context,
    run_step,
    version_context,
)
from conv_tasks.engine.node.decide import Decision, Verdict, decide, settles
from conv_tasks.engine.node.delivery import Outcome
from conv_tasks.engine.node.run import run_node
from conv_tasks.engine.node.unhealthy import repaired_in_place

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.db",
    "conv_tasks.engine.definition",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.payload",
    "conv_tasks.errors",
    "conv_tasks.faults",
    "conv_tasks.graph",
    "conv_tasks.provider_errors",
    "conv_tasks.resources",
    "conv_tasks.statuses",
    "conv_tasks.syncpoint",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features",
    "conv_tasks.engine.read",
    "conv_tasks.engine.stack",
    "conv_tasks.engine.upkeep",
    "conv_tasks.requests",
)

__all__ = [
    "BACKOFF_LAST",
    "Decision",
    "Outcome",
    "StepResult",
    "Verdict",
    "decide",
    "leftover_context",
    "masked",
    "observing_context",
    "repaired_in_place",
    "run_node",
    "run_step",
    "settles",
    "version_context",
]
