"""plan_traversal: versions to converge, nodes, hard and soft edges, and conflicts (seed 001)."""

from __future__ import annotations

import pytest

from conv_tasks.errors import CycleError, TemplateError
from conv_tasks.graph import (
    ExistingVersion,
    NodeKey,
    Phase,
    TraversalGraph,
    TraversalPlan,
    plan_traversal,
)


def U(name: str) -> NodeKey:
    return NodeKey(Phase.UPDATE, name)


def C(name: str) -> NodeKey:
    return NodeKey(Phase.CLEANUP, name)


def row(
    id: int, name: str, requires: str = "", *, version: int = 1, head: bool = True
) -> ExistingVersion:
    return ExistingVersion(id, name, version, frozenset(requires), head)


def deps(**requires: str) -> dict[str, frozenset[str]]:
    return {name: frozenset(names) for name, names in requires.items()}


def before(graph: TraversalGraph, first: NodeKey, then: NodeKey) -> bool:
    """Whether a path leads from first to then (so first must finish before then)."""
    seen, todo = {first}, [first]
    while todo:
        for succ in graph.successors(todo.pop()):
            if succ == then:
                return True
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return False


def assert_valid_order(graph: TraversalGraph) -> None:
    order = graph.order()
    assert len(order) == len(set(order)) == len(graph)
    position = {node: i for i, node in enumerate(order)}
    for first, then in graph.edges():
        assert position[first] < position[then]


def test_create_with_no_rows() -> None:
    plan = plan_traversal([], deps(A="", B="A", C="AB"))
    assert dict(plan.converge) == {"A": None, "B": None, "C": None}
    assert plan.new_names == ("A", "B", "C")
    assert plan.removed == ()
    graph = plan.graph
    assert graph.nodes == {U("A"), U("B"), U("C"), C("A"), C("B"), C("C")}
    assert set(graph.edges()) == {
        (U("A"), U("B")), (U("A"), U("C")), (U("B"), U("C")),  # E1
        (U("A"), C("A")), (U("B"), C("B")), (U("C"), C("C")),  # E2
        (C("B"), C("A")), (C("C"), C("A")), (C("C"), C("B")),  # E3
    }  # fmt: skip
    assert graph.roots() == (U("A"),)
    assert graph.leaves() == (C("A"),)
    assert_valid_order(graph)


def test_new_names_keep_template_order() -> None:
    plan = plan_traversal([row(1, "m")], deps(z="", m="", a=""))
    assert list(plan.converge) == ["z", "m", "a"]
    assert plan.new_names == ("z", "a")


def test_seed_003_update() -> None:
    rows = [row(1, "A"), row(2, "B"), row(3, "C", "AB"), row(4, "D", "C"), row(5, "E", "C")]
    plan = plan_traversal(rows, deps(A="", B="", C="AB", F="C"))
    assert dict(plan.converge) == {"A": 1, "B": 2, "C": 3, "F": None}
    assert plan.new_names == ("F",)
    assert plan.removed == ("D", "E")
    graph = plan.graph
    assert graph.nodes == {*map(U, "ABCF"), *map(C, "ABCDEF")}
    edges = set(graph.edges())
    # Updates in dependency order.
    assert {(U("A"), U("C")), (U("B"), U("C")), (U("C"), U("F"))} <= edges
    # Clean-ups in reverse dependency order.
    assert {(C("F"), C("C")), (C("C"), C("A")), (C("C"), C("B"))} <= edges
    # Removed resources are cleaned up before what they used (soft edges from old rows).
    assert {(C("D"), C("C")), (C("E"), C("C"))} <= edges
    # Each clean-up after its update.
    assert {(U(n), C(n)) for n in "ABCF"} <= edges
    assert before(graph, U("F"), C("A"))
    assert not before(graph, C("A"), U("F"))
    assert graph.roots() == (C("D"), C("E"), U("A"), U("B"))
    assert graph.leaves() == (C("A"), C("B"))
    assert_valid_order(graph)


def test_delete_has_only_cleanups_in_reverse_order() -> None:
    rows = [row(1, "A"), row(2, "B", "A"), row(3, "C", "AB"), row(4, "C", "A", head=False)]
    plan = plan_traversal(rows, {})
    assert dict(plan.converge) == {}
    assert plan.new_names == ()
    assert plan.removed == ("A", "B", "C")
    assert plan.graph.nodes == {C("A"), C("B"), C("C")}
    assert set(plan.graph.edges()) == {(C("B"), C("A")), (C("C"), C("A")), (C("C"), C("B"))}
    assert plan.graph.order() == [C("C"), C("B"), C("A")]


def test_requires_on_names_without_nodes_are_ignored() -> None:
    plan = plan_traversal([row(1, "A", "AXY")], {})
    assert plan.graph.nodes == {C("A")}
    assert plan.graph.edges() == ()


def test_non_head_rows_are_not_converged() -> None:
    rows = [
        row(1, "A", version=1, head=False),
        row(2, "A", version=2, head=True),
        row(3, "B", version=5, head=False),
        row(4, "C", version=1, head=True),
        row(5, "C", version=3, head=True),
        row(6, "C", version=2, head=True),
        row(7, "C", version=9, head=False),
    ]
    plan = plan_traversal(rows, deps(A="", B="", C=""))
    assert dict(plan.converge) == {"A": 2, "B": None, "C": 5}
    assert plan.new_names == ("B",)
    assert plan.removed == ()


def test_soft_edges_from_old_versions_apply() -> None:
    # An old version of B used A; the new template no longer links them.
    rows = [row(1, "A"), row(2, "B", "A", head=False), row(3, "B")]
    plan = plan_traversal(rows, deps(A="", B=""))
    assert (C("B"), C("A")) in plan.graph.edges()


def test_reversed_dependency_purges_old_versions_in_their_own_order() -> None:
    # Old: B required A. New template: A requires B. The old B still uses the old A, so the
    # old B is purged first; the template's E3 edge cleanup:A -> cleanup:B gives way, and the
    # clean-up of B waits for the update of A instead.
    rows = [row(1, "A"), row(2, "B", "A"), row(3, "X", "B")]
    plan = plan_traversal(rows, deps(A="B", B="", X=""))
    edges = set(plan.graph.edges())
    assert (C("B"), C("A")) in edges
    assert (C("A"), C("B")) not in edges
    assert (U("A"), C("B")) in edges
    assert {(U("B"), U("A")), (U("A"), C("A")), (U("B"), C("B"))} <= edges
    assert (C("X"), C("B")) in edges
    assert_valid_order(plan.graph)


def test_only_the_contradicted_template_edges_give_way() -> None:
    # cleanup:A -> cleanup:B (E3) contradicts the old B's use of A. Old rows also say A used W
    # and W used V: those version edges and the template's other edges stay.
    rows = [row(1, "A", "W"), row(2, "B", "A"), row(3, "W", "V"), row(4, "V")]
    plan = plan_traversal(rows, deps(A="B", B="", W="", V="", Y="A"))
    edges = set(plan.graph.edges())
    assert (C("B"), C("A")) in edges
    assert (C("A"), C("B")) not in edges
    assert (C("A"), C("W")) in edges
    assert (C("W"), C("V")) in edges
    assert (C("Y"), C("A")) in edges  # E3, not on the cycle
    assert_valid_order(plan.graph)


def test_stored_versions_that_contradict_each_other_are_still_planned() -> None:
    # Left behind by failed updates: an old B used A and an old A used B. No order satisfies
    # both; the plan drops the edges on that cycle rather than fail.
    rows = [row(1, "A", "B", head=False), row(2, "B", "A", head=False), row(3, "A"), row(4, "B")]
    plan = plan_traversal(rows, {})
    assert plan.graph.edges() == ()


def test_hard_edges_alone_are_acyclic() -> None:
    template = deps(A="", B="A", C="AB", D="C", E="BD")
    plan = plan_traversal([], template)
    # With no rows there are no soft edges; the graph built from hard edges is valid.
    assert_valid_order(plan.graph)
    assert len(plan.graph.edges()) == 6 + 5 + 6  # E1 + E2 + E3


def test_self_requirement_in_old_row_is_ignored() -> None:
    plan = plan_traversal([row(1, "A", "A")], deps(A=""))
    assert set(plan.graph.edges()) == {(U("A"), C("A"))}


def test_cycle_in_template_names_resources() -> None:
    with pytest.raises(CycleError) as info:
        plan_traversal([], deps(A="C", B="A", C="B", D="A"))
    assert sorted(info.value.cycle) == ["A", "B", "C"]
    message = str(info.value)
    assert all(name in message for name in "ABC")
    assert "D" not in info.value.cycle


def test_self_dependency_is_a_cycle() -> None:
    with pytest.raises(CycleError) as info:
        plan_traversal([], deps(A="A"))
    assert info.value.cycle == ("A",)


def test_unknown_dependency_is_rejected() -> None:
    with pytest.raises(TemplateError) as info:
        plan_traversal([row(1, "Q")], deps(A="Q", B="AX"))
    paths = [(p.path, p.message) for p in info.value.problems]
    assert [path for path, _ in paths] == ["resources.A", "resources.B"]
    assert "'Q'" in paths[0][1] and "'X'" in paths[1][1]


def test_plan_is_immutable() -> None:
    plan = plan_traversal([], deps(A=""))
    assert isinstance(plan, TraversalPlan)
    with pytest.raises(TypeError):
        plan.converge["A"] = 3  # type: ignore[index]


@pytest.mark.parametrize("shape", ["chain", "fan", "reversed"])
def test_ten_thousand_resources(shape: str) -> None:
    n = 10_000
    names = [f"r{i}" for i in range(n)]
    if shape == "chain":
        template = {names[i]: frozenset(names[i - 1 : i]) for i in range(n)}
        rows = [row(i, name) for i, name in enumerate(names)]
    elif shape == "fan":
        template = {names[0]: frozenset(), names[-1]: frozenset(names[1:-1])}
        template.update({name: frozenset({names[0]}) for name in names[1:-1]})
        rows = []
    else:
        # Every old row depended the other way round: 10,000 soft edges in conflict.
        template = {names[i]: frozenset(names[i - 1 : i]) for i in range(n)}
        rows = [
            ExistingVersion(i, name, 1, frozenset(names[i + 1 : i + 2]), True)
            for i, name in enumerate(names)
        ]
    plan = plan_traversal(rows, template)
    assert len(plan.graph) == 2 * n
    assert_valid_order(plan.graph)
    assert TraversalGraph.from_json(plan.graph.to_json()) == plan.graph
