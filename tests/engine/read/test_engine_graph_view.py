"""The live status of each graph node, from the resource versions; and the DOT quoting."""

from __future__ import annotations

import html
import re
import subprocess
from types import SimpleNamespace
from typing import Any

import pydot

from conv_tasks.cli.render.graph import COLOURS, colour, to_dot
from conv_tasks.engine.read.graph import CLEANED, NOT_STARTED, _status
from conv_tasks.graph import NodeKey, Phase


def row(name: str, version: int, action: str, status: str, replaced_by: int | None = None) -> Any:
    return SimpleNamespace(
        name=name,
        version=version,
        action=action,
        status=status,
        state=f"{action}_{status}",
        is_head=replaced_by is None,
    )


def test_update_node_shows_the_current_version() -> None:
    rows = [row("a", 1, "CREATE", "COMPLETE", replaced_by=2), row("a", 2, "UPDATE", "FAILED")]
    assert _status(NodeKey(Phase.UPDATE, "a"), rows, {"a"}) == "UPDATE_FAILED"
    assert _status(NodeKey(Phase.UPDATE, "b"), rows, {"a", "b"}) == NOT_STARTED
    assert _status(NodeKey(Phase.UPDATE, "c"), [row("c", 1, "INIT", "COMPLETE")], {"c"}) == (
        NOT_STARTED
    )


def test_check_node_shows_the_current_version() -> None:
    # Not what an older version left (a clean-up node would show that failure).
    rows = [row("a", 1, "CREATE", "FAILED", replaced_by=2), row("a", 2, "CHECK", "COMPLETE")]
    assert _status(NodeKey(Phase.CHECK, "a"), rows, set()) == "CHECK_COMPLETE"
    assert _status(NodeKey(Phase.CHECK, "b"), rows, set()) == NOT_STARTED


def test_cleanup_node_shows_what_is_left_to_remove() -> None:
    rows = [row("a", 1, "CREATE", "COMPLETE", replaced_by=2), row("a", 2, "CREATE", "COMPLETE")]
    assert _status(NodeKey(Phase.CLEANUP, "a"), rows, {"a"}) == "CREATE_COMPLETE"
    assert _status(NodeKey(Phase.CLEANUP, "a"), rows[1:], {"a"}) == CLEANED
    # A resource gone from the template: its head is what the clean-up removes.
    gone = [row("g", 1, "DELETE", "IN_PROGRESS")]
    assert _status(NodeKey(Phase.CLEANUP, "g"), gone, set()) == "DELETE_IN_PROGRESS"


def test_colours_by_status() -> None:
    assert colour("UPDATE_IN_PROGRESS") == COLOURS["IN_PROGRESS"]
    assert colour("DELETE_FAILED") == COLOURS["FAILED"]
    assert colour(CLEANED) == COLOURS["CLEANED"]


def test_dot_quotes_names_with_quotes_and_spaces() -> None:
    name = 'we "b" 1'
    graph = {
        "stack": "s",
        "status": "CREATE_COMPLETE",
        "nodes": [{"id": f"update:{name}", "phase": "update", "name": name, "status": "X"}],
        "edges": [],
    }
    (parsed,) = pydot.graph_from_dot_data(to_dot(graph))
    assert [n.get_name() for n in parsed.get_nodes() if n.get_name() != "node"] == [
        '"update:we \\"b\\" 1"'
    ]


def test_dot_labels_keep_backslashes_as_graphviz_draws_them() -> None:
    """A name ending in a backslash, or holding Graphviz's `\\N`, is drawn as written, on
    its own line above the phase and status (the real `dot`)."""
    names = ["ends with\\", "holds \\N and \\n", 'quote\\"']
    graph = {
        "stack": "s",
        "status": "CREATE_COMPLETE",
        "nodes": [
            {"id": f"update:{name}", "phase": "update", "name": name, "status": "X"}
            for name in names
        ],
        "edges": [],
    }
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=to_dot(graph), capture_output=True, text=True, check=True
    ).stdout
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    for name in names:
        assert name in texts, (name, texts)
    assert texts.count("update: X") == len(names)
