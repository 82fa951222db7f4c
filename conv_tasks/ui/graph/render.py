"""render_svg: a stack's traversal graph, with live statuses, as an SVG to inline in a page.

Reads the two public task answers (conv_tasks.stack.graph and conv_tasks.stack.resources),
decides what to draw (drawing, focus), writes DOT (dot), lays it out with Graphviz
(dot_command) and makes the SVG safe and selectable (svg); drawings are cached (cache).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conv_tasks.ui.graph.cache import DrawingCache
from conv_tasks.ui.graph.dot import dot_source
from conv_tasks.ui.graph.dot_command import run_dot
from conv_tasks.ui.graph.drawing import plan_drawing
from conv_tasks.ui.graph.errors import GraphRenderError
from conv_tasks.ui.graph.focus import focus
from conv_tasks.ui.graph.inputs import ResourceInfo, StackGraph, read_graph, read_resources
from conv_tasks.ui.graph.nesting import nest
from conv_tasks.ui.graph.svg import finish_svg

# Above this many nodes only failed and in-progress nodes and their neighbours are drawn.
FOCUS_LIMIT = 300


@dataclass(frozen=True)
class GraphView:
    """A drawn graph: the <svg> element, how many nodes it shows of how many, and why not
    all of them (`note`, "" when it shows them all)."""

    svg: str
    node_count: int
    total_nodes: int
    trimmed: bool
    note: str


# One per process, shared by the edge's threads.
CACHE: DrawingCache[GraphView] = DrawingCache()


def render_svg(
    graph: Mapping[str, Any],
    resources: Sequence[Mapping[str, Any]],
    *,
    show_cleanup: bool = False,
    expand: frozenset[str] = frozenset(),
    focus_limit: int = FOCUS_LIMIT,
) -> GraphView:
    """The stack's graph as SVG. `graph` is what conv_tasks.stack.graph returns, `resources`
    the "resources" of conv_tasks.stack.resources (with nested_depth, to show nested stacks'
    counts). Clean-up nodes are drawn with show_cleanup (or when a traversal has nothing
    else); nested stacks and resource groups are one node with counts, unless their path
    (names joined by "/": "group", "group/0") is in `expand`. GraphRenderError when dot is
    missing, fails or times out."""
    if focus_limit < 1:
        raise GraphRenderError(f"Cannot draw the graph: focus_limit is {focus_limit}, not >= 1.")
    stack_graph = read_graph(graph)
    infos = read_resources(resources)
    options = (bool(show_cleanup), tuple(sorted(expand)), focus_limit)
    key = (stack_graph.traversal, fingerprint(stack_graph, infos), options)
    cached = CACHE.get(key)
    if cached is not None:
        return cached
    view = draw(stack_graph, infos, show_cleanup=show_cleanup, expand=expand, limit=focus_limit)
    CACHE.put(key, view)
    return view


def draw(
    graph: StackGraph,
    resources: tuple[ResourceInfo, ...],
    *,
    show_cleanup: bool,
    expand: frozenset[str],
    limit: int,
) -> GraphView:
    """render_svg without the cache."""
    drawing = plan_drawing(graph, nest(resources), show_cleanup=show_cleanup, expand=expand)
    focused = focus(drawing, limit)
    svg = finish_svg(run_dot(dot_source(focused.drawing)), focused.drawing)
    return GraphView(
        svg=svg,
        node_count=len(focused.drawing.nodes),
        total_nodes=focused.total,
        trimmed=focused.trimmed,
        note=focused.note,
    )


def fingerprint(graph: StackGraph, resources: tuple[ResourceInfo, ...]) -> str:
    """A digest of everything a drawing is made from but the traversal and the options:
    each node's status, the edges, and each resource's status, reason and nesting."""
    digest = hashlib.sha256()
    digest.update(json.dumps([graph.stack, graph.status]).encode())
    digest.update(json.dumps([[n.id, n.phase, n.name, n.status] for n in graph.nodes]).encode())
    digest.update(json.dumps(graph.edges).encode())
    shown = [[r.name, r.status, r.reason, r.physical_id, r.stack_id, r.requires] for r in resources]
    digest.update(json.dumps(shown).encode())
    return digest.hexdigest()
