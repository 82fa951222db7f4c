"""One graph node: converge a resource (update phase), purge its old versions (clean-up),
check it (a stack check), or suspend or resume it (a stack suspend or resume).

A node hands its predecessors' failures on without touching the database;
otherwise it runs on one database connection: claim, decide, act, write,
hand on. It stops as soon as it sees that its traversal is no longer the
stack's, except to finish a resource action it had started, which it never
abandons half-way.
"""

from __future__ import annotations

import uuid

from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.node.check import check_node
from conv_tasks.engine.node.cleanup import clean_up
from conv_tasks.engine.node.converge import converge
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.node.propagate import hand_on
from conv_tasks.engine.node.suspend import walk_node
from conv_tasks.engine.payload import NodeOutput, NodeTask, waiter_ref
from conv_tasks.graph import NodeKey, Phase


def run_node(env: EngineEnv, task: NodeTask, nonce: str | None = None) -> Outcome:
    """Run one delivery of a node task. Returns what happened, for logs and tests.

    The delivery holds leases under `nonce`, its own (a fresh one when not given); the
    task's `nonce` names the lease it may continue (a poll's, a retry's). A second delivery
    of the same message thus never holds the lease beside the first (issue 23).
    """
    failures = task.failures()
    if failures and not task.poll:
        # A predecessor failed: this node does nothing. Its own clean-up node (if any) has
        # nothing to do either; both just pass the failure on.
        settled = (
            (NodeKey(Phase.CLEANUP, task.node.name),) if task.node.phase == Phase.UPDATE else ()
        )
        hand_on(env, task, NodeOutput(failed=failures), settled=settled)
        return Outcome.SKIPPED
    nonce = nonce or str(uuid.uuid4())
    with env.db.node_store(
        stack_id=task.stack_id,
        traversal=task.traversal,
        template_id=task.template_id,
        nonce=nonce,
        continues=task.nonce,
    ) as store:
        if task.recheck:
            if not store.waiting(task.node.name, waiter_ref(task)):
                return Outcome.WOKEN_ALREADY  # the holder let go and woke us: it was insurance
            task = task.again(recheck=False)  # still waiting: from here an ordinary delivery
        run = NodeRun(env, store, task, nonce)
        try:
            if task.node.phase == Phase.UPDATE:
                return converge(run)
            if task.node.phase == Phase.CLEANUP:
                return clean_up(run)
            return check_node(run) if task.node.phase == Phase.CHECK else walk_node(run)
        finally:
            run.flush()
