"""render_svg: a stack's traversal graph, with live statuses, as an SVG to inline in a page.

Reads the two public task answers (conv_tasks.stack.graph and conv_tasks.stack.resources),
decides what to draw (drawing, focus), writes DOT (dot), lays it out with Graphviz
(dot_command) and makes the SVG safe and selectable (svg); drawings are cached (cache).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Mapping, Sequence
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
    options = (bool(show_cleanup), tuple(sorted(expand)), focus_limit)
    key = cache_key(graph, resources, options)
    cached = CACHE.get(key) if key is not None else None
    if cached is not None:
        return cached
    view = draw(
        read_graph(graph),
        read_resources(resources),
        show_cleanup=show_cleanup,
        expand=expand,
        limit=focus_limit,
    )
    if key is not None:
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


def cache_key(
    graph: Mapping[str, Any], resources: Sequence[Mapping[str, Any]], options: Hashable
) -> Hashable | None:
    """(traversal, stack and its status, a digest of the statuses, options): what a drawing
    is cached under. The traversal fixes the graph's nodes and edges; the digest covers each
    node's id and status and each resource's name, status, reason, version flag, nesting and
    requirements. Computed from the answers as handed in, before they are read, so that a
    page drawn again costs no more than this; None (nothing cached) for a shape too wrong
    to key, which read_graph or read_resources then refuses with its reason."""
    try:
        nodes = [(n["id"], n["status"]) for n in graph["nodes"]]
        shown = [
            (
                r.get("name"),
                r.get("status"),
                r.get("status_reason"),
                r.get("current", True),
                r.get("physical_id"),
                r.get("stack_id"),
                r.get("requires"),
            )
            for r in resources
        ]
        digest = hashlib.sha256(json.dumps([nodes, len(graph["edges"]), shown]).encode())
        head = (graph.get("traversal"), graph.get("stack"), graph.get("status"))
        hash(head)
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    return (*head, digest.hexdigest(), options)
