"""conv_tasks.ui.graph: a stack's traversal graph, with live statuses, as server-side SVG.

render_svg takes what the public tasks conv_tasks.stack.graph and conv_tasks.stack.resources
answered and returns a GraphView: an <svg> to inline in a page (no XML prolog, nothing
scriptable), each node a <g class="node status-<status> [failed]" data-node="<name>"
data-status="<STATUS>">, labelled with its name and status as text. Clean-up nodes are drawn
on demand; nested stacks and resource groups collapse into one node with counts unless
opened; above the focus limit only failed and in-progress nodes and their neighbours are
drawn, with a note. Graphviz's `dot` lays it out in a subprocess; drawings are cached
in-process per traversal, statuses and options.

This folder must never import conv_tasks.engine, conv_tasks.db or conv_tasks.tasks, nor ask
anything of a stack: it draws what it is handed. It must never put user text (names,
statuses, reasons) into DOT except as an escaped label, nor on dot's command line.
"""

from conv_tasks.ui.graph.errors import GraphRenderError
from conv_tasks.ui.graph.render import FOCUS_LIMIT, GraphView, render_svg

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.api",
    "conv_tasks.client",
    "conv_tasks.db",
    "conv_tasks.edge",
    "conv_tasks.engine",
    "conv_tasks.tasks",
    "jinja2",
    "starlette",
)

__all__ = ["FOCUS_LIMIT", "GraphRenderError", "GraphView", "render_svg"]
