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
