"""Handing a finished node's output to its successors through their SyncPoints.

One Redis call satisfies every successor's point; the successors it
completed, and the nodes that waited for a lease this node released, are
published in one batch. A redelivered node repeats only the triggers that
may have been lost. When the stack's own point completes, the traversal is
over: the environment's `end_traversal` finishes the stack's operation (this module
knows nothing of stack operations).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.payload import NodeOutput, NodeTask
from conv_tasks.graph import NodeKey
from conv_tasks.syncpoint import FinishOutcome, Handoff

log = logging.getLogger(__name__)


def hand_on(
    env: EngineEnv,
    task: NodeTask,
    output: NodeOutput,
    *,
    settled: Iterable[NodeKey] = (),
    also: Iterable[Mapping[str, Any]] = (),
) -> Handoff:
    """Satisfy the successors of `task`'s node with `output`; enqueue what that completed.

    `settled` are successors with nothing to do: they never become tasks.
    `also` are payloads to publish in the same batch.
    """
    handoff = env.syncpoints.finish(
        task.traversal, str(task.node), output.to_json(), settled=[str(s) for s in settled]
    )
    payloads = list(also)
    payloads.extend(task.successor(node, inputs) for node, inputs in handoff.triggered)
    if payloads:
        env.dispatcher.nodes(payloads)
    if handoff.outcome == FinishOutcome.MISSING or handoff.missing:
        log.warning(
            "stack %s: traversal %s lost SyncPoints (%s); the watchdog will resume it",
            task.stack_id,
            task.traversal,
            ", ".join(handoff.missing) or str(task.node),
        )
    if handoff.stack_input is not None:
        env.end_traversal(env, task.stack_id, task.traversal, handoff.stack_input)
    return handoff
