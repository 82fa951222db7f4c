"""Property tests: for random acyclic templates and random existing rows, the plan's order
respects every hard edge, contains every node once, and never cycles."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conv_tasks.graph import ExistingVersion, NodeKey, Phase, TraversalGraph
from conv_tasks.graph import plan_traversal as plan

Edge = tuple[NodeKey, NodeKey]
POOL = [f"r{i}" for i in range(12)]


@st.composite
def templates(draw: st.DrawFn) -> dict[str, frozenset[str]]:
    """A random DAG: each resource may require only resources earlier in the pool order."""
    chosen = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=10))
    shuffled = draw(st.permutations(chosen))
    template: dict[str, frozenset[str]] = {}
    for i, name in enumerate(shuffled):
        earlier = shuffled[:i]
        template[name] = (
            frozenset(draw(st.sets(st.sampled_from(earlier)))) if earlier else (frozenset())
        )
    return template


rows_strategy = st.lists(
    st.builds(
        ExistingVersion,
        id=st.integers(1, 1000),
        name=st.sampled_from(POOL),
        version=st.integers(1, 5),
        requires=st.frozensets(st.sampled_from([*POOL, "ghost"]), max_size=4),
        is_head=st.booleans(),
    ),
    max_size=15,
)


def hard_edges(template: dict[str, frozenset[str]]) -> set[Edge]:
    """E1 and E2: never dropped."""
    edges: set[Edge] = set()
    for name, requires in template.items():
        edges.add((NodeKey(Phase.UPDATE, name), NodeKey(Phase.CLEANUP, name)))
        for required in requires:
            edges.add((NodeKey(Phase.UPDATE, required), NodeKey(Phase.UPDATE, name)))
    return edges


def template_edges(template: dict[str, frozenset[str]]) -> set[Edge]:
    """E3: clean up in the template's reverse dependency order."""
    return {
        (NodeKey(Phase.CLEANUP, name), NodeKey(Phase.CLEANUP, required))
        for name, requires in template.items()
        for required in requires
    }


@settings(max_examples=300, deadline=None)
@given(templates(), rows_strategy)
def test_order_respects_hard_edges(
    template: dict[str, frozenset[str]], rows: list[ExistingVersion]
) -> None:
    result = plan(rows, template)
    graph = result.graph
    row_names = {row.name for row in rows}
    expected_nodes = {NodeKey(Phase.UPDATE, n) for n in template} | {
        NodeKey(Phase.CLEANUP, n) for n in {*template, *row_names}
    }
    assert graph.nodes == expected_nodes

    order = graph.order()
    assert len(order) == len(set(order)) == len(expected_nodes)
    position = {node: i for i, node in enumerate(order)}
    hard = hard_edges(template)
    assert hard <= set(graph.edges())
    for first, then in hard:
        assert position[first] < position[then]
    for first, then in graph.edges():
        assert position[first] < position[then]

    # Each E3 edge is kept, or gives way to the update of the user before the clean-up.
    edges = set(graph.edges())
    for user, used in template_edges(template):
        assert (user, used) in edges or (NodeKey(Phase.UPDATE, user.name), used) in edges
    # Every other edge comes from some stored version's requirements.
    version_edges = {
        (NodeKey(Phase.CLEANUP, row.name), NodeKey(Phase.CLEANUP, x))
        for row in rows
        for x in row.requires
        if x != row.name and NodeKey(Phase.CLEANUP, x) in expected_nodes
    }
    replaced = {(NodeKey(Phase.UPDATE, u.name), c) for u, c in template_edges(template)}
    assert edges - hard - template_edges(template) - replaced <= version_edges

    assert result.removed == tuple(sorted(row_names - template.keys()))
    for name, row_id in result.converge.items():
        heads = [row for row in rows if row.name == name and row.is_head]
        if not heads:
            assert row_id is None
        else:
            assert row_id == max(heads, key=lambda r: (r.version, r.id)).id
    assert TraversalGraph.from_json(graph.to_json()) == graph


@settings(max_examples=200, deadline=None)
@given(templates())
def test_hard_edges_alone_never_cycle(template: dict[str, frozenset[str]]) -> None:
    nodes = {NodeKey(p, n) for n in template for p in (Phase.UPDATE, Phase.CLEANUP)}
    graph = TraversalGraph(nodes, hard_edges(template) | template_edges(template))  # no cycle
    assert len(graph.order()) == len(nodes)
