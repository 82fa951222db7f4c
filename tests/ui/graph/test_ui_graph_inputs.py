"""Reading conv_tasks.stack.graph's and conv_tasks.stack.resources' answers: a value of the
wrong shape is a GraphRenderError that says where; old versions are left out."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import ConvTasksError
from conv_tasks.ui.graph import GraphRenderError
from conv_tasks.ui.graph.inputs import read_graph, read_resources

GRAPH: dict[str, Any] = {
    "stack": "s",
    "status": "CREATE_COMPLETE",
    "traversal": "t",
    "nodes": [{"id": "update:a", "phase": "update", "name": "a", "status": "CREATE_COMPLETE"}],
    "edges": [["update:a", "cleanup:a"]],
}


def test_a_graph_is_read_into_nodes_and_edges() -> None:
    graph = read_graph(GRAPH)
    assert (graph.stack, graph.status, graph.traversal) == ("s", "CREATE_COMPLETE", "t")
    assert [(n.id, n.phase, n.name, n.status) for n in graph.nodes] == [
        ("update:a", "update", "a", "CREATE_COMPLETE")
    ]
    assert graph.edges == (("update:a", "cleanup:a"),)


def test_a_stack_without_a_graph_yet_has_no_traversal() -> None:
    graph = read_graph(
        {"stack": "s", "status": "INIT_COMPLETE", "traversal": None, "nodes": [], "edges": []}
    )
    assert graph.traversal == ""
    assert graph.nodes == ()


@pytest.mark.parametrize(
    ("graph", "says"),
    [
        ([], "the graph must be a mapping"),
        ({"nodes": []}, "lists 'nodes' and 'edges'"),
        ({**GRAPH, "nodes": ["update:a"]}, "nodes[0] must be a mapping"),
        ({**GRAPH, "nodes": [{**GRAPH["nodes"][0], "name": 7}]}, "nodes[0].name must be a string"),
        ({**GRAPH, "edges": ["ab"]}, "edges[0] must be a pair of ids"),
        ({**GRAPH, "edges": [["a", "b", "c"]]}, "edges[0] must be a pair of ids"),
        ({**GRAPH, "edges": [["a", None]]}, "edges[0][1] must be a string"),
    ],
)
def test_a_malformed_graph_is_refused_saying_where(graph: Any, says: str) -> None:
    with pytest.raises(GraphRenderError, match=f"Cannot draw the graph: .*{_re(says)}"):
        read_graph(graph)


def test_graph_render_error_is_a_conv_tasks_error() -> None:
    assert issubclass(GraphRenderError, ConvTasksError)
    assert GraphRenderError("x").to_dict() == {"error": "graph_render_failed", "message": "x"}


def test_resources_keep_head_versions_and_their_nesting() -> None:
    found = read_resources(
        [
            {
                "name": "a",
                "status": "UPDATE_COMPLETE",
                "current": True,
                "physical_id": "p",
                "stack_id": "s1",
                "requires": ["b"],
                "status_reason": "done",
            },
            {"name": "a", "status": "CREATE_COMPLETE", "current": False},
            {"name": "b", "status": "CREATE_COMPLETE", "physical_id": None},
        ]
    )
    assert [(r.name, r.status, r.reason, r.physical_id, r.stack_id, r.requires) for r in found] == [
        ("a", "UPDATE_COMPLETE", "done", "p", "s1", ("b",)),
        ("b", "CREATE_COMPLETE", "", None, None, ()),
    ]


@pytest.mark.parametrize(
    ("resources", "says"),
    [
        ({"name": "a"}, "the resources must be a list"),
        (["a"], "resources[0] must be a mapping"),
        ([{"name": "a", "status": None}], "resources[0].status must be a string"),
        ([{"name": "a", "status": "X", "requires": "b"}], "resources[0].requires must be a list"),
        ([{"name": "a", "status": "X", "requires": [1]}], "resources[0].requires[0] must be"),
    ],
)
def test_malformed_resources_are_refused_saying_where(resources: Any, says: str) -> None:
    with pytest.raises(GraphRenderError, match=_re(says)):
        read_resources(resources)


def _re(text: str) -> str:
    import re

    return re.escape(text)
