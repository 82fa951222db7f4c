"""Handing a finished node's result to its successors through their SyncPoints.

Whichever satisfy completes a successor's SyncPoint enqueues that successor;
a redelivered node that had completed one enqueues it again (successors are
idempotent), so no trigger is ever lost. The stack's own SyncPoint, fed by
the graph's leaves, completes the traversal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from conv_tasks.db.session import session_scope
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.operations import STACK_SYNC, node_payload
from conv_tasks.engine.payload import NodeTask
from conv_tasks.engine.snapshot import cached_graph, traversal_graph
from conv_tasks.redis_client import get_redis

log = logging.getLogger(__name__)


def failures_in(data: Mapping[str, Any]) -> list[str]:
    """The failures the predecessors reported (a failed node's dependents do not run)."""
    found: list[str] = []
    for value in data.values():
        if isinstance(value, Mapping):
            for failure in value.get("failed") or ():
                if failure not in found:
                    found.append(str(failure))
    return found


def propagate(env: EngineEnv, task: NodeTask, out: Mapping[str, Any]) -> None:
    graph = cached_graph(task.traversal)
    if graph is None:
        with session_scope() as session:
            graph = traversal_graph(session, task.stack_id, task.traversal)
    if graph is None:
        return  # superseded while we worked: the new traversal owns the stack
    me = str(task.node)
    payloads: list[Mapping[str, Any]] = []
    successors = graph.successors(task.node)
    for successor in successors:
        result = env.syncpoints.satisfy(task.traversal, str(successor), me, dict(out))
        if result.should_trigger(me):
            payloads.append(node_payload(task.stack_id, task.traversal, successor, result.data))
        elif result.outcome == "missing":
            log.warning(
                "SyncPoint %s of %s is missing; the watchdog will resume", successor, task.traversal
            )
    completed: Mapping[str, Any] | None = None
    if not successors:
        result = env.syncpoints.satisfy(task.traversal, STACK_SYNC, me, dict(out))
        if result.should_trigger(me):
            completed = result.data or {}
    if payloads:
        env.dispatcher.nodes(payloads)
    if completed is not None:
        from conv_tasks.engine.completion import complete_traversal

        complete_traversal(env, task.stack_id, task.traversal, completed)


def wait_for_lock(env: EngineEnv, task: NodeTask, resource_id: int) -> None:
    """Another traversal's action holds the resource: be picked up when it ends.

    The payload is left where the lock holder looks when it releases the
    lock; a delayed recheck covers a holder that died without releasing it.
    """
    payload = task.to_payload()
    payload.pop("nonce", None)
    ttl = env.settings.lock_ttl
    get_redis(env.settings.redis_url).set(
        env.waiter_key(resource_id), json.dumps(payload), ex=int(ttl * 10) + 60
    )
    env.dispatcher.node(payload, countdown=ttl)


def wake_waiter(env: EngineEnv, resource_id: int) -> None:
    """Enqueue the node that was waiting for this resource's lock, if any."""
    raw = get_redis(env.settings.redis_url).getdel(env.waiter_key(resource_id))
    if raw:
        env.dispatcher.node(json.loads(raw))
