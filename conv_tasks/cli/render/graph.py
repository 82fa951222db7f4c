"""`conv-tasks stack graph`: a traversal graph as Graphviz DOT or Mermaid, nodes coloured by
their live status (IN_PROGRESS yellow, COMPLETE green, FAILED red, not started grey,
cleaned white)."""

from __future__ import annotations

import json
from typing import Any

COLOURS = {
    "IN_PROGRESS": "#ffd966",
    "COMPLETE": "#93c47d",
    "FAILED": "#e06666",
    "NOT_STARTED": "#d9d9d9",
    "CLEANED": "#ffffff",
}


def colour(status: str) -> str:
    for suffix, shade in COLOURS.items():
        if status.endswith(suffix):
            return shade
    return "#ffffff"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a DOT ID in double quotes


def to_dot(graph: dict[str, Any]) -> str:
    title = f"{graph['stack']} {graph['status']}"
    lines = [
        f"digraph {_quoted(graph['stack'])} {{",
        f"  label={_quoted(title)};",
        "  rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
    ]
    for node in graph["nodes"]:
        label = _escape(node["name"]) + "\\n" + _escape(f"{node['phase']}: {node['status']}")
        lines.append(
            f'  {_quoted(node["id"])} [label="{label}", '
            f'fillcolor="{colour(node["status"])}", status="{node["status"]}"];'
        )
    for before, after in graph["edges"]:
        lines.append(f"  {_quoted(before)} -> {_quoted(after)};")
    lines.append("}")
    return "\n".join(lines)


def _escape(text: str) -> str:
    """`text` as it reads inside a quoted DOT label: a backslash is doubled (Graphviz reads
    `\\N`, `\\n` and the like in a label as escapes, and one at the end would take the line
    break after it), and a double quote escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_mermaid(graph: dict[str, Any]) -> str:
    ids = {node["id"]: f"n{i}" for i, node in enumerate(graph["nodes"])}
    lines = ["flowchart LR"]
    for node in graph["nodes"]:
        label = f"{node['name']}<br/>{node['phase']}: {node['status']}".replace('"', "#quot;")
        lines.append(f'  {ids[node["id"]]}["{label}"]')
    for before, after in graph["edges"]:
        lines.append(f"  {ids[before]} --> {ids[after]}")
    for node in graph["nodes"]:
        lines.append(f"  style {ids[node['id']]} fill:{colour(node['status'])}")
    return "\n".join(lines)
