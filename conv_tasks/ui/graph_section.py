"""The graph on a stack's page: conv_tasks.ui.graph's SVG, drawn in the edge's thread pool
(`dot` runs as a subprocess), or the sentence saying why there is none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conv_tasks.edge import TaskGateway

# Past this many nodes the graph is not redrawn as each event arrives (each redraw reads the
# stack's resources and graph again): a link redraws it.
LIVE_REDRAW_LIMIT = 1000


@dataclass(frozen=True)
class GraphSection:
    svg: str = ""
    node_count: int = 0
    total_nodes: int = 0
    trimmed: bool = False
    note: str = ""
    problem: str = ""
    # Not drawn yet: the page fetches it once shown (a stack of this many resources).
    deferred: int = 0

    @property
    def live(self) -> bool:
        return self.total_nodes <= LIVE_REDRAW_LIMIT

    @classmethod
    def empty(cls, problem: str) -> GraphSection:
        return cls(problem=problem)

    @classmethod
    def later(cls, resources: int) -> GraphSection:
        return cls(deferred=resources)


async def graph_section(
    gateway: TaskGateway,
    graph: Mapping[str, Any],
    resources: Sequence[Mapping[str, Any]],
    *,
    show_cleanup: bool,
    expand: frozenset[str],
) -> GraphSection:
    # Imported here: the renderer's module cache and `dot` are needed only by a graph.
    from conv_tasks.ui.graph import GraphRenderError, render_svg

    if not graph.get("nodes"):
        return GraphSection.empty("This stack has no traversal graph to draw.")
    try:
        view = await gateway.run(
            lambda: render_svg(graph, resources, show_cleanup=show_cleanup, expand=expand)
        )
    except GraphRenderError as exc:
        return GraphSection.empty(f"The graph cannot be drawn: {exc}")
    return GraphSection(view.svg, view.node_count, view.total_nodes, view.trimmed, view.note)
