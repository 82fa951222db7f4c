"""The one error the graph renderer raises."""

from __future__ import annotations

from conv_tasks.errors import ConvTasksError


class GraphRenderError(ConvTasksError):
    """A stack's graph could not be drawn: Graphviz's `dot` is missing, failed or took too
    long, or the graph handed in is not the shape conv_tasks.stack.graph returns. The message
    says which."""

    code = "graph_render_failed"
