"""The SVG `dot` wrote, made fit to inline in a page: no XML prolog, DOCTYPE or comments,
nothing scriptable, and each node marked for browsers and tests to find.

The SVG is parsed and written back with ElementTree rather than edited as text: elements and
attributes outside a short allow-list of what Graphviz draws with (shapes, text, groups,
titles) are dropped, so no <script>, <a>, <foreignObject>, `on*` handler or href can come
through, whatever a label held. Then every node group gets data-node (its resource name),
data-path, data-status, data-phase and, for a nested stack, data-collapsed; every title (the
browser's tooltip) names the resource, its status and its reason instead of a DOT id. Values
are set as attributes and text, so ElementTree escapes them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

from conv_tasks.ui.graph.dot import CLUSTER_ID, EDGE_ID, GRAPH_ID, NODE_ID
from conv_tasks.ui.graph.drawing import Drawing, DrawnNode, Nesting
from conv_tasks.ui.graph.errors import GraphRenderError
from conv_tasks.ui.graph.inputs import UPDATE

SVG_NS = "http://www.w3.org/2000/svg"
SVG_CLASS = "stack-graph"
MAX_TITLE_CHARS = 1000

_ELEMENTS = frozenset({"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text"})
_ATTRIBUTES = frozenset(
    {
        "id", "class", "transform", "viewBox", "width", "height",
        "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity",
        "opacity", "points", "d", "x", "y", "cx", "cy", "rx", "ry",
        "text-anchor", "font-family", "font-size", "font-weight", "font-style",
    }
)  # fmt: skip
# Characters XML 1.0 cannot hold, replaced in the values this module writes.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NUMBERED = re.compile(r"(gnode|gedge)-(\d+)")


def _tag(name: str) -> str:
    return f"{{{SVG_NS}}}{name}"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def finish_svg(raw: bytes, drawing: Drawing) -> str:
    """dot's SVG output for `drawing`, as an <svg> element to inline."""
    if b"<!ENTITY" in raw:
        raise GraphRenderError("Cannot draw the graph: dot's SVG declares entities.")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as error:
        raise GraphRenderError(
            f"Cannot draw the graph: dot's SVG does not parse ({error})."
        ) from None
    if root.tag != _tag("svg"):
        raise GraphRenderError("Cannot draw the graph: dot's output is not an SVG document.")
    _keep_only_drawing(root)
    root.set("class", SVG_CLASS)
    for group in root.iter(_tag("g")):
        _mark(group, drawing)
    out: list[str] = []
    _write(root, out)
    return "".join(out)


def _keep_only_drawing(element: ET.Element) -> None:
    for name in list(element.attrib):
        if name not in _ATTRIBUTES:
            del element.attrib[name]
    for child in list(element):
        if child.tag.startswith(f"{{{SVG_NS}}}") and child.tag[len(SVG_NS) + 2 :] in _ELEMENTS:
            _keep_only_drawing(child)
        else:
            element.remove(child)


_ATTRIBUTE_ESCAPES = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}


def _write(element: ET.Element, out: list[str]) -> None:
    """Write the (allow-listed) tree as SVG markup: every element is the SVG namespace's,
    every attribute unqualified, so the root's xmlns is the only namespace there is."""
    name = element.tag[len(SVG_NS) + 2 :]
    out.append(f"<{name}")
    if name == "svg":
        out.append(f' xmlns="{SVG_NS}"')
    for key, value in element.attrib.items():
        out.append(f' {key}="{escape(_xml_text(value), _ATTRIBUTE_ESCAPES)}"')
    children = list(element)
    if not children and not element.text:
        out.append("/>")
    else:
        out.append(">")
        out.append(escape(_xml_text(element.text or "")))
        for child in children:
            _write(child, out)
            tail = child.tail or ""
            # Graphviz's comments leave blank lines behind: one newline between elements.
            out.append("\n" if tail.isspace() else escape(_xml_text(tail)))
        out.append(f"</{name}>")


def _title(group: ET.Element, text: str) -> None:
    title = group.find(_tag("title"))
    if title is None:
        title = ET.Element(_tag("title"))
        group.insert(0, title)
    title.text = _xml_text(text[:MAX_TITLE_CHARS])


def _mark(group: ET.Element, drawing: Drawing) -> None:
    ident = group.get("id", "")
    if ident == GRAPH_ID:
        _title(group, f"{drawing.stack} {drawing.status}".strip())
        return
    if ident.startswith(CLUSTER_ID.format("")):
        label = group.find(_tag("text"))
        _title(group, (label.text or "") if label is not None else "")
        return
    found = _NUMBERED.fullmatch(ident)
    if found is None:
        return
    number = int(found[2])
    if ident == NODE_ID.format(number) and number < len(drawing.nodes):
        _mark_node(group, drawing.nodes[number])
    elif ident == EDGE_ID.format(number) and number < len(drawing.edges):
        edge = drawing.edges[number]
        tail, head = drawing.nodes[edge.tail], drawing.nodes[edge.head]
        _title(group, f"{_named(tail)} \u2192 {_named(head)}")


def _named(node: DrawnNode) -> str:
    """A node as a tooltip names it: its path, and its phase when it is not an update."""
    return node.path_text if node.phase == UPDATE else f"{node.path_text} ({node.phase})"


def _mark_node(group: ET.Element, node: DrawnNode) -> None:
    group.set("data-node", _xml_text(node.name))
    group.set("data-path", _xml_text(node.path_text))
    group.set("data-status", _xml_text(node.status))
    group.set("data-phase", _xml_text(node.phase))
    if node.nesting is not Nesting.NONE:
        group.set("data-collapsed", "true" if node.nesting is Nesting.COLLAPSED else "false")
        group.set("data-members", _xml_text(node.counts))
    lines = [f"{_named(node)}: {node.status}"]
    if node.counts:
        lines.append(f"nested stack: {node.counts}")
    if node.reason:
        lines.append(node.reason)
    _title(group, "\n".join(lines))
