"""The traversal graph of a stack with each node's live status, for `conv-tasks stack graph`.

The graph is the one the stack's last operation planned (stored with its traversal); each
node's status comes from the resource versions, as `stack resources` shows them:
an update node has its resource's current version's status, a clean-up node the status
of the versions it still has to remove (the busiest of them), or CLEANED when none is left.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db.models import Resource
from conv_tasks.db.session import session_scope
from conv_tasks.graph import NodeKey, Phase, TraversalGraph

CLEANED = "CLEANED"
NOT_STARTED = "NOT_STARTED"
# Which status a clean-up node shows when several old versions remain.
_BUSIEST = ("IN_PROGRESS", "FAILED", "COMPLETE")


def stack_graph(tenant: str, ref: str) -> dict[str, Any]:
    """{"stack", "status", "traversal", "nodes": [{"id", "phase", "name", "status"}],
    "edges": [[before, after], ...]}."""
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, ref)
        stored = stack.current_graph
        rows = list(resource_repo.versions(session, stack.id))
        summary = {
            "stack": stack.name,
            "status": f"{stack.action}_{stack.status}",
            "traversal": stack.current_traversal,
        }
    graph = TraversalGraph.from_json(stored) if stored else None
    if graph is None:
        return {**summary, "nodes": [], "edges": []}
    update_names = {key.name for key in graph.nodes if key.phase == Phase.UPDATE}
    nodes = [
        {
            "id": str(key),
            "phase": str(key.phase),
            "name": key.name,
            "status": _status(key, rows, update_names),
        }
        for key in graph.order()
    ]
    edges = [[str(before), str(after)] for before, after in graph.edges()]
    return {**summary, "nodes": nodes, "edges": edges}


def _status(key: NodeKey, rows: list[Resource], update_names: set[str]) -> str:
    mine = [r for r in rows if r.name == key.name]
    heads = [r for r in mine if r.replaced_by is None]
    head = max(heads, key=lambda r: r.version) if heads else None
    if key.phase in (Phase.UPDATE, Phase.CHECK):
        if head is None:
            return NOT_STARTED
        if head.action == "INIT":
            return NOT_STARTED
        return f"{head.action}_{head.status}"
    # Clean-up: what is left to remove. A resource still in the template keeps its head.
    left = [r for r in mine if key.name not in update_names or r is not head]
    if not left:
        return CLEANED
    for status in _BUSIEST:
        for row in sorted(left, key=lambda r: -r.version):
            if row.status == status:
                return f"{row.action}_{row.status}"
    return f"{left[0].action}_{left[0].status}"
