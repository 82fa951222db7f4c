"""What the renderer is handed, read into typed values: the answer of the public task
conv_tasks.stack.graph and the "resources" of conv_tasks.stack.resources.

Both come from the engine, but the names and reasons in them are user input (a template's
resource names, a provider's error text): nothing here trusts them beyond their type. A
value of the wrong shape is a GraphRenderError naming where it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from conv_tasks.ui.graph.errors import GraphRenderError

UPDATE = "update"
CLEANUP = "cleanup"
CHECK = "check"
SUSPEND = "suspend"
RESUME = "resume"


# GraphNode and ResourceInfo are NamedTuples rather than frozen dataclasses: a 10,000-resource
# stack makes 30,000 of them per drawing, and a tuple is built several times faster.
class GraphNode(NamedTuple):
    """One node of the traversal graph, with its live status."""

    id: str
    phase: str
    name: str
    status: str


@dataclass(frozen=True)
class StackGraph:
    stack: str
    status: str
    traversal: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[tuple[str, str], ...]


class ResourceInfo(NamedTuple):
    """A resource's head version, as conv_tasks.stack.resources shows it. `stack_id` is set
    when the resources were read with nested_depth (each names its stack then)."""

    name: str
    status: str
    reason: str
    physical_id: str | None
    stack_id: str | None
    requires: tuple[str, ...]


def _text(value: Any, where: str, *, optional: bool = False) -> str:
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise GraphRenderError(f"Cannot draw the graph: {where} must be a string.")
    return value


def _all_text(*values: Any) -> bool:
    return all(type(value) is str for value in values)


def read_graph(graph: Mapping[str, Any]) -> StackGraph:
    """The answer of conv_tasks.stack.graph, checked."""
    if not isinstance(graph, Mapping):
        raise GraphRenderError("Cannot draw the graph: the graph must be a mapping.")
    raw_nodes = graph.get("nodes")
    raw_edges = graph.get("edges")
    if not isinstance(raw_nodes, Sequence) or not isinstance(raw_edges, Sequence):
        raise GraphRenderError("Cannot draw the graph: it must have lists 'nodes' and 'edges'.")
    nodes = []
    for n, raw in enumerate(raw_nodes):
        try:
            node = GraphNode(raw["id"], raw["phase"], raw["name"], raw["status"])
        except (KeyError, TypeError):
            node = None
        nodes.append(node if node is not None and _all_text(*node) else _graph_node(n, raw))
    edges = []
    for n, raw in enumerate(raw_edges):
        if type(raw) is list and len(raw) == 2 and _all_text(*raw):
            edges.append((raw[0], raw[1]))
            continue
        if isinstance(raw, str | bytes) or not isinstance(raw, Sequence) or len(raw) != 2:
            raise GraphRenderError(f"Cannot draw the graph: edges[{n}] must be a pair of ids.")
        edges.append((_text(raw[0], f"edges[{n}][0]"), _text(raw[1], f"edges[{n}][1]")))
    return StackGraph(
        stack=_text(graph.get("stack"), "stack", optional=True),
        status=_text(graph.get("status"), "status", optional=True),
        traversal=_text(graph.get("traversal"), "traversal", optional=True),
        nodes=tuple(nodes),
        edges=tuple(edges),
    )


def _graph_node(n: int, raw: Any) -> GraphNode:
    """nodes[n] read field by field, or the error saying what is wrong with it."""
    if not isinstance(raw, Mapping):
        raise GraphRenderError(f"Cannot draw the graph: nodes[{n}] must be a mapping.")
    return GraphNode(
        id=_text(raw.get("id"), f"nodes[{n}].id"),
        phase=_text(raw.get("phase"), f"nodes[{n}].phase"),
        name=_text(raw.get("name"), f"nodes[{n}].name"),
        status=_text(raw.get("status"), f"nodes[{n}].status"),
    )


def read_resources(resources: Sequence[Mapping[str, Any]]) -> tuple[ResourceInfo, ...]:
    """The head versions among conv_tasks.stack.resources' "resources" (all of them unless
    it was asked for all_versions), checked."""
    if isinstance(resources, str | bytes) or not isinstance(resources, Sequence):
        raise GraphRenderError("Cannot draw the graph: the resources must be a list.")
    found = []
    for n, raw in enumerate(resources):
        if not isinstance(raw, Mapping):
            raise GraphRenderError(f"Cannot draw the graph: resources[{n}] must be a mapping.")
        if raw.get("current", True) is not True:
            continue
        requires = raw.get("requires") or ()
        if isinstance(requires, str | bytes) or not isinstance(requires, Sequence):
            raise GraphRenderError(
                f"Cannot draw the graph: resources[{n}].requires must be a list of names."
            )
        name: Any = raw.get("name")
        status: Any = raw.get("status")
        reason: Any = raw.get("status_reason") or ""
        physical_id: Any = raw.get("physical_id") or None
        stack_id: Any = raw.get("stack_id") or None
        if not (
            _all_text(name, status, reason, *requires)
            and type(physical_id) in (str, type(None))
            and type(stack_id) in (str, type(None))
        ):
            name = _text(name, f"resources[{n}].name")
            status = _text(status, f"resources[{n}].status")
            reason = _text(reason, f"resources[{n}].status_reason")
            physical_id = _text(physical_id, f"resources[{n}].physical_id", optional=True) or None
            stack_id = _text(stack_id, f"resources[{n}].stack_id", optional=True) or None
            for i, r in enumerate(requires):
                _text(r, f"resources[{n}].requires[{i}]")
        found.append(ResourceInfo(name, status, reason, physical_id, stack_id, tuple(requires)))
    return tuple(found)
