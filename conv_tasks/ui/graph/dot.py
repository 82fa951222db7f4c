"""The DOT source of a drawing, for `dot -Tsvg`.

Names, statuses and reasons are user input, so none of them is ever written into DOT except
as the text of a double-quoted label, escaped by dot_text: DOT ids, ids and class names are
this module's own (`n12`, `gnode-12`, `status-create_failed`). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable

from conv_tasks.ui.graph.drawing import PATH_SEPARATOR, Drawing, DrawnNode, EdgeKind, Nesting
from conv_tasks.ui.graph.families import LOOKS, Family, family_of, status_class
from conv_tasks.ui.graph.inputs import CHECK, CLEANUP, RESUME, SUSPEND

# Longer names are cut on the label (data-node and the tooltip keep them whole): a long name
# would make its whole rank as wide.
MAX_LABEL_CHARS = 48
ELLIPSIS = "\u2026"
REPLACEMENT = "\ufffd"  # what an unprintable character (a newline, a control) is shown as

NODE_ID = "gnode-{}"
EDGE_ID = "gedge-{}"
CLUSTER_ID = "gcluster-{}"
GRAPH_ID = "stack-graph"

_HEADER = f"""digraph stack {{
  graph [id="{GRAPH_ID}", rankdir=LR, nodesep=0.18, ranksep=0.4, bgcolor="transparent",
         fontname="Helvetica", fontsize=10];
  node [shape=box, fontname="Helvetica", fontsize=10, margin="0.10,0.04", fontcolor="#1a1a1a"];
  edge [color="#6b6b6b", arrowsize=0.6];
"""
_PHASE_WORDS = {CLEANUP: "clean-up", CHECK: "check", SUSPEND: "suspend", RESUME: "resume"}


def shortened(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def dot_text(text: str) -> str:
    """`text` as a double-quoted DOT string that a plain label shows exactly as written.

    In a quoted DOT string only \\" is special, but a label is then read as an escString (a
    backslash starts \\n, \\N, \\G, \\l ...) with HTML entities (&amp;) replaced: so & becomes
    &amp;, a backslash \\\\ and a quote \\". A newline or any other unprintable character
    becomes U+FFFD, so that nothing can end the string or the line."""
    printable = "".join(ch if ch.isprintable() else REPLACEMENT for ch in text)
    escaped = printable.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def label_lines(lines: Iterable[str]) -> str:
    """Several lines of text as one DOT label (centred lines, `\\n` between them)."""
    return '"' + "\\n".join(dot_text(line)[1:-1] for line in lines) + '"'


def node_lines(node: DrawnNode) -> tuple[str, str]:
    """The label of a node: its name (with counts for a nested stack), then its status."""
    first = shortened(node.name)
    if node.nesting is not Nesting.NONE:
        first = f"{first} ({node.counts})"
    word = _PHASE_WORDS.get(node.phase)
    return first, f"{word}: {node.status}" if word else node.status


def node_classes(node: DrawnNode) -> str:
    """The node's classes after Graphviz's own "node": its status, and "failed"."""
    classes = status_class(node.status)
    if family_of(node.status) is Family.FAILED:
        classes += " failed"
    return classes


def _node(index: int, node: DrawnNode) -> str:
    look = LOOKS[family_of(node.status)]
    extra = ", peripheries=2" if node.nesting is Nesting.COLLAPSED else ""
    return (
        f'n{index} [id="{NODE_ID.format(index)}", class="{node_classes(node)}", '
        f'label={label_lines(node_lines(node))}, style="{look.style}", '
        f'fillcolor="{look.fill}", color="{look.border}", penwidth={look.penwidth}{extra}];'
    )


def dot_source(drawing: Drawing) -> str:
    """The whole graph as DOT: nodes of open nested stacks inside clusters, one per stack."""
    placed: dict[tuple[str, ...], list[int]] = {}
    for index, node in enumerate(drawing.nodes):
        placed.setdefault(node.cluster, []).append(index)
    clusters = sorted(
        {node.cluster[:n] for node in drawing.nodes for n in range(1, len(node.cluster) + 1)}
    )
    lines = [_HEADER.rstrip("\n")]
    _emit(drawing, (), placed, clusters, lines, "  ", iter(range(len(clusters))))
    for n, edge in enumerate(drawing.edges):
        style = (
            ', class="member", style=dashed, arrowhead=none' if edge.kind is EdgeKind.MEMBER else ""
        )
        lines.append(f'  n{edge.tail} -> n{edge.head} [id="{EDGE_ID.format(n)}"{style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _emit(
    drawing: Drawing,
    cluster: tuple[str, ...],
    placed: dict[tuple[str, ...], list[int]],
    clusters: list[tuple[str, ...]],
    lines: list[str],
    indent: str,
    numbers: Iterable[int],
) -> None:
    numbers = iter(numbers)
    for index in placed.get(cluster, ()):
        lines.append(indent + _node(index, drawing.nodes[index]))
    for inner in clusters:
        if inner[:-1] != cluster:
            continue
        number = next(numbers)
        lines.append(f"{indent}subgraph cluster_{number} {{")
        lines.append(
            f'{indent}  graph [id="{CLUSTER_ID.format(number)}", class="nested", '
            f"label={dot_text(shortened(PATH_SEPARATOR.join(inner), 2 * MAX_LABEL_CHARS))}, "
            'style="rounded,dashed", color="#8c8c8c", fontsize=9];'
        )
        _emit(drawing, inner, placed, clusters, lines, indent + "  ", numbers)
        lines.append(f"{indent}}}")
