"""The traversal graph of a stack with each node's live status, for `conv-tasks stack graph`.

The graph is the one the stack's last operation planned (stored with its traversal); each
node's status comes from the resource versions, as `stack resources` shows them:
an update node has its resource's current version's status, a clean-up node the status
of the versions it still has to remove (the busiest of them), or CLEANED when none is left.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import ResourceRow
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.graph import NodeKey, Phase, TraversalGraph
from conv_tasks.statuses import Action

CLEANED = "CLEANED"
NOT_STARTED = "NOT_STARTED"
# Which status a clean-up node shows when several old versions remain.
_BUSIEST = ("IN_PROGRESS", "FAILED", "COMPLETE")


def stack_graph(env: EngineEnv, tenant: str, ref: str) -> dict[str, Any]:
    """{"stack", "status", "traversal", "nodes": [{"id", "phase", "name", "status"}],
    "edges": [[before, after], ...]}."""
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, ref)
        stored = stack.current_graph
        rows = tx.resources.of_stack(stack.id)
    summary = {"stack": stack.name, "status": stack.state, "traversal": stack.current_traversal}
    graph = TraversalGraph.from_json(stored) if stored else None
    if graph is None:
        return {**summary, "nodes": [], "edges": []}
    update_names = {key.name for key in graph.nodes if key.phase == Phase.UPDATE}
    # Each node reads its own resource's versions: grouped once, so that a graph of n nodes
    # costs n, not n times the stack's rows (10,000 resources took seconds).
    by_name: dict[str, list[ResourceRow]] = {}
    for row in rows:
        by_name.setdefault(row.name, []).append(row)
    nodes = [
        {
            "id": str(key),
            "phase": str(key.phase),
            "name": key.name,
            "status": _status(key, by_name.get(key.name, []), update_names),
        }
        for key in graph.order()
    ]
    edges = [[str(before), str(after)] for before, after in graph.edges()]
    return {**summary, "nodes": nodes, "edges": edges}


def _status(key: NodeKey, rows: list[ResourceRow], update_names: set[str]) -> str:
    """The node's status, from `rows` (its resource's versions, or more)."""
    mine = [r for r in rows if r.name == key.name]
    heads = [r for r in mine if r.is_head]
    head = max(heads, key=lambda r: r.version) if heads else None
    if key.phase != Phase.CLEANUP:
        if head is None:
            return NOT_STARTED
        if head.action == Action.INIT:
            return NOT_STARTED
        return head.state
    # Clean-up: what is left to remove. A resource still in the template keeps its head.
    left = [r for r in mine if key.name not in update_names or r is not head]
    if not left:
        return CLEANED
    for status in _BUSIEST:
        for row in sorted(left, key=lambda r: -r.version):
            if row.status == status:
                return row.state
    return left[0].state
