"""Synthetic stacks for the graph renderer's tests: what conv_tasks.stack.graph and
conv_tasks.stack.resources answer for a stack of n resources in layers, each requiring one
or two of the layer before, with an update and a clean-up node per resource (as a create's
traversal has)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def name(i: int) -> str:
    return f"r{i:05d}"


def synthetic_stack(
    n: int,
    *,
    width: int = 25,
    failed: Collection[int] = (),
    in_progress: Collection[int] = (),
    not_started: Collection[int] = (),
    traversal: str = "trav-1",
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    def status(i: int) -> str:
        if i in failed:
            return "CREATE_FAILED"
        if i in in_progress:
            return "CREATE_IN_PROGRESS"
        if i in not_started:
            return "NOT_STARTED"
        return "CREATE_COMPLETE"

    def requires(i: int) -> list[int]:
        if i < width:
            return []
        before = [i - width]
        if (i + 1) % width and i - width + 1 < n:
            before.append(i - width + 1)
        return before

    nodes = []
    edges = []
    resources = []
    for i in range(n):
        nodes.append(
            {"id": f"update:{name(i)}", "phase": "update", "name": name(i), "status": status(i)}
        )
        nodes.append(
            {"id": f"cleanup:{name(i)}", "phase": "cleanup", "name": name(i), "status": "CLEANED"}
        )
        edges.append([f"update:{name(i)}", f"cleanup:{name(i)}"])
        for j in requires(i):
            edges.append([f"update:{name(j)}", f"update:{name(i)}"])
            edges.append([f"cleanup:{name(i)}", f"cleanup:{name(j)}"])
        resources.append(
            {
                "name": name(i),
                "type": "OS::Heat::TestResource",
                "version": 1,
                "physical_id": f"phys-{i}",
                "action": "CREATE",
                "status": status(i),
                "status_reason": "",
                "requires": [name(j) for j in requires(i)],
                "current": True,
                "updated_at": None,
            }
        )
    stack_status = "CREATE_FAILED" if failed else "CREATE_COMPLETE"
    graph = {
        "stack": "synthetic",
        "status": stack_status,
        "traversal": traversal,
        "nodes": nodes,
        "edges": edges,
    }
    return graph, resources
