"""conv_tasks.node.converge: one graph node of one traversal (internal, not a public API).

Node tasks keep no result and report no STARTED state: nobody reads them, and
each would cost the result backend a round trip per node. A transient fault
of PostgreSQL or Redis (a restart, a dropped connection) does not fail the
node: it is sent again with a jittered, growing delay, holding on to its
lease, and logged in one line.

A delivery whose resource failed raises ResourceFailed once it has recorded
the failure and handed it on, so that Flower counts it as a failed task
(the task-failed event). Nothing is retried or redelivered: the task has no
retry policy and a late-acknowledged message is acknowledged on failure
(task_acks_on_failure_or_timeout, Celery's default); no result is stored.
"""

from __future__ import annotations

import logging
import random
import uuid
from typing import Any

from celery.exceptions import Reject

from conv_tasks.engine import NodeTask, Outcome, parse_node_task, run_node
from conv_tasks.errors import PayloadError
from conv_tasks.faults import TRANSIENT_FAULTS, describe
from conv_tasks.tasks.app import app
from conv_tasks.tasks.runtime import NODE_TASK, engine_env

log = logging.getLogger(__name__)

# Delays between attempts grow from about a tenth of a second to at most half a minute.
FIRST_DELAY = 0.1
LONGEST_DELAY = 30.0


def retry_delay(attempt: int, rng: random.Random | None = None) -> float:
    """Full jitter: a random delay up to an exponentially growing ceiling."""
    ceiling = min(LONGEST_DELAY, FIRST_DELAY * 2 ** min(attempt, 16))
    return (rng or random).uniform(ceiling / 2, ceiling)


def _retry(task: NodeTask, exc: Exception) -> None:
    again = task.again(poll=False, attempt=task.attempt + 1)
    delay = retry_delay(task.attempt)
    log.warning(
        "node %s of traversal %s: %s; trying again in %.1fs (attempt %d)",
        task.node,
        task.traversal,
        describe(exc),
        delay,
        again.attempt,
    )
    try:
        engine_env().dispatcher.node(again.to_payload(), countdown=delay)
    except Exception:
        # The broker is down too: hand the message back to it unacknowledged instead.
        raise Reject(requeue=True) from None


class ResourceFailed(Exception):
    """A node's resource failed; the failure is recorded and handed on already."""


def _failed(task: NodeTask) -> ResourceFailed:
    stack = task.stack or task.stack_id
    return ResourceFailed(
        f"stack {stack}: {task.node.phase} of resource {task.node.name!r} failed "
        "(the reason is in the stack's events)"
    )


# ResourceFailed is expected: the worker logs it in one line, without a traceback.
@app.task(name=NODE_TASK, ignore_result=True, track_started=False, throws=(ResourceFailed,))
def converge(**payload: Any) -> None:
    try:
        task = parse_node_task(payload)
    except PayloadError as exc:
        log.error("malformed node payload dropped: %s", exc)
        return
    # This delivery's lease nonce is chosen here, so that a retry after a transient fault
    # carries on with the lease this delivery may already have taken.
    nonce = str(uuid.uuid4())
    try:
        outcome = run_node(engine_env(), task, nonce)
    except TRANSIENT_FAULTS as exc:
        _retry(task.again(nonce=nonce), exc)
        return
    log.debug("node %s of traversal %s: %s", task.node, task.traversal, outcome)
    if outcome == Outcome.FAILED:
        raise _failed(task)
