"""TraversalGraph: queries, JSON round trip, and rejection of malformed graphs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.graph import NodeKey, Phase, TraversalGraph

UA, UB, UC = NodeKey(Phase.UPDATE, "a"), NodeKey(Phase.UPDATE, "b"), NodeKey(Phase.UPDATE, "c")
CA, CB = NodeKey(Phase.CLEANUP, "a"), NodeKey(Phase.CLEANUP, "b")


def _graph() -> TraversalGraph:
    return TraversalGraph(
        [UA, UB, UC, CA, CB],
        [(UA, UC), (UB, UC), (UA, CA), (UB, CB), (UC, CA), (UA, UC)],
    )


def test_queries() -> None:
    graph = _graph()
    assert len(graph) == 5
    assert graph.nodes == frozenset({UA, UB, UC, CA, CB})
    assert graph.predecessors(UC) == frozenset({UA, UB})
    assert graph.predecessors(UA) == frozenset()
    assert graph.successors(UA) == (CA, UC)
    assert graph.roots() == (UA, UB)
    assert graph.leaves() == (CA, CB)
    assert len(graph.edges()) == 5  # the duplicate collapsed


def test_order_is_topological_and_complete() -> None:
    graph = _graph()
    order = graph.order()
    assert sorted(order) == sorted(graph.nodes)
    position = {node: i for i, node in enumerate(order)}
    for first, then in graph.edges():
        assert position[first] < position[then]


def test_unknown_node_is_key_error() -> None:
    with pytest.raises(KeyError):
        _graph().successors(NodeKey(Phase.UPDATE, "zzz"))


def test_immutable() -> None:
    graph = _graph()
    with pytest.raises(AttributeError):
        graph.nodes = frozenset()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        graph._order = ()  # type: ignore[misc]
    graph.order().clear()
    assert len(graph.order()) == 5


def test_json_round_trip() -> None:
    graph = _graph()
    data = json.loads(json.dumps(graph.to_json()))
    assert set(data) == {"nodes", "edges"}
    assert ["update:a", "update:c"] in data["edges"]
    again = TraversalGraph.from_json(data)
    assert again == graph
    assert again.edges() == graph.edges()
    assert again.order() == graph.order()


def test_empty_graph() -> None:
    graph = TraversalGraph([])
    assert len(graph) == 0
    assert graph.roots() == () == graph.leaves()
    assert TraversalGraph.from_json({"nodes": [], "edges": []}) == graph


def test_constructor_rejects_cycle() -> None:
    with pytest.raises(InvalidInput) as info:
        TraversalGraph([UA, UB, UC], [(UA, UB), (UB, UC), (UC, UB)])
    assert "cycle" in str(info.value)
    assert "update:b" in str(info.value) and "update:c" in str(info.value)


def test_constructor_rejects_unknown_endpoint_and_self_loop() -> None:
    with pytest.raises(InvalidInput, match="not a node"):
        TraversalGraph([UA], [(UA, UB)])
    with pytest.raises(InvalidInput, match="self-loop"):
        TraversalGraph([UA], [(UA, UA)])


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ([], ""),
        ({"nodes": "update:a", "edges": []}, "nodes"),
        ({"edges": []}, "nodes"),
        ({"nodes": ["update:a"], "edges": {}}, "edges"),
        ({"nodes": ["update:a", "bogus"], "edges": []}, "nodes[1]"),
        ({"nodes": ["update:a", 3], "edges": []}, "nodes[1]"),
        ({"nodes": ["update:a", "update:a"], "edges": []}, "nodes[1]"),
        ({"nodes": ["update:a"], "edges": [["update:a"]]}, "edges[0]"),
        ({"nodes": ["update:a"], "edges": ["update:a"]}, "edges[0]"),
        ({"nodes": ["update:a"], "edges": [["update:a", "update:b"]]}, "edges[0][1]"),
        ({"nodes": ["update:a"], "edges": [["update:a", "nope"]]}, "edges[0][1]"),
        ({"nodes": ["update:a"], "edges": [["update:a", "update:a"]]}, "edges[0]"),
        (
            {
                "nodes": ["update:a", "update:b"],
                "edges": [["update:a", "update:b"], ["update:b", "update:a"]],
            },
            "edges",
        ),
        ({"nodes": [], "edges": [], "extra": 1}, "extra"),
    ],
)
def test_from_json_rejects_malformed(data: Any, path: str) -> None:
    with pytest.raises(InvalidInput) as info:
        TraversalGraph.from_json(data)
    assert path in [problem.path for problem in info.value.problems]


def test_from_json_reports_every_problem() -> None:
    with pytest.raises(InvalidInput) as info:
        TraversalGraph.from_json({"nodes": ["x", "update:a", 1], "edges": [["update:a", "y"]]})
    assert [p.path for p in info.value.problems] == ["nodes[0]", "nodes[2]", "edges[0][1]"]
