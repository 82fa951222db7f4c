"""What is drawn: update (and check) nodes by default, clean-up nodes on demand, nested
stacks and resource groups as one node with counts unless opened by path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conv_tasks.ui.graph.drawing import Drawing, EdgeKind, Nesting, plan_drawing
from conv_tasks.ui.graph.inputs import read_graph, read_resources
from conv_tasks.ui.graph.nesting import counts_text, nest


def node(phase: str, name: str, status: str) -> dict[str, str]:
    return {"id": f"{phase}:{name}", "phase": phase, "name": name, "status": status}


def resource(name: str, status: str, stack: str, physical: str, *requires: str) -> dict[str, Any]:
    return {
        "name": name,
        "status": status,
        "stack_id": stack,
        "physical_id": physical,
        "requires": list(requires),
        "current": True,
        "status_reason": f"{name} says why",
    }


def plan(
    nodes: list[dict[str, str]],
    edges: list[list[str]],
    resources: Sequence[dict[str, Any]] = (),
    *,
    show_cleanup: bool = False,
    expand: frozenset[str] = frozenset(),
) -> Drawing:
    graph = read_graph(
        {"stack": "s", "status": "X", "traversal": "t", "nodes": nodes, "edges": edges}
    )
    return plan_drawing(
        graph, nest(read_resources(list(resources))), show_cleanup=show_cleanup, expand=expand
    )


def shown(drawing: Drawing) -> list[str]:
    return [f"{n.phase}:{n.path_text}" for n in drawing.nodes]


def edges(drawing: Drawing) -> set[tuple[str, str, str]]:
    names = shown(drawing)
    return {(names[e.tail], names[e.head], str(e.kind)) for e in drawing.edges}


CREATE = (
    [
        node("update", "a", "CREATE_COMPLETE"),
        node("update", "b", "CREATE_FAILED"),
        node("cleanup", "a", "CLEANED"),
        node("cleanup", "b", "CLEANED"),
    ],
    [["update:a", "update:b"], ["update:a", "cleanup:a"], ["cleanup:b", "cleanup:a"]],
)


def test_update_nodes_are_drawn_and_clean_up_nodes_left_out_by_default() -> None:
    drawing = plan(*CREATE)
    assert shown(drawing) == ["update:a", "update:b"]
    assert edges(drawing) == {("update:a", "update:b", "depends")}
    assert [n.status for n in drawing.nodes] == ["CREATE_COMPLETE", "CREATE_FAILED"]


def test_clean_up_nodes_are_drawn_with_show_cleanup() -> None:
    drawing = plan(*CREATE, show_cleanup=True)
    assert shown(drawing) == ["update:a", "update:b", "cleanup:a", "cleanup:b"]
    assert ("update:a", "cleanup:a", "depends") in edges(drawing)
    assert len(drawing.edges) == 3


def test_a_delete_traversal_has_only_clean_up_nodes_and_they_are_drawn() -> None:
    drawing = plan([node("cleanup", "a", "DELETE_IN_PROGRESS")], [])
    assert shown(drawing) == ["cleanup:a"]


def test_check_nodes_are_drawn() -> None:
    drawing = plan([node("check", "a", "CHECK_COMPLETE")], [])
    assert shown(drawing) == ["check:a"]


def test_edges_naming_unknown_nodes_are_left_out() -> None:
    drawing = plan([node("update", "a", "CREATE_COMPLETE")], [["update:a", "update:ghost"]])
    assert drawing.edges == ()


def test_a_repeated_node_id_is_drawn_once() -> None:
    a = node("update", "a", "CREATE_COMPLETE")
    assert shown(plan([a, {**a, "status": "CREATE_FAILED"}], [])) == ["update:a"]


# A stack "top" (id T) with a group (owning stack G: members 0, 1, 2, where 2 failed and 1
# requires 0), a nested stack "inner" (owning N, with "deep", itself owning D with "x"), and
# "empty", whose nested stack has no resources.
NESTED_GRAPH = (
    [
        node("update", "group", "CREATE_FAILED"),
        node("update", "inner", "CREATE_COMPLETE"),
        node("update", "empty", "CREATE_COMPLETE"),
        node("update", "after", "NOT_STARTED"),
        node("cleanup", "group", "CLEANED"),
    ],
    [["update:group", "update:after"], ["update:inner", "update:after"]],
)
NESTED_RESOURCES = [
    resource("group", "CREATE_FAILED", "T", "G"),
    resource("inner", "CREATE_COMPLETE", "T", "N"),
    resource("empty", "CREATE_COMPLETE", "T", "E"),
    resource("after", "INIT_COMPLETE", "T", "A", "group", "inner"),
    resource("0", "CREATE_COMPLETE", "G", "g0"),
    resource("1", "CREATE_COMPLETE", "G", "g1", "0"),
    resource("2", "CREATE_FAILED", "G", "g2"),
    resource("deep", "CREATE_COMPLETE", "N", "D"),
    resource("x", "CREATE_IN_PROGRESS", "D", "x1"),
]


def test_nested_stacks_and_groups_collapse_into_one_node_with_counts() -> None:
    drawing = plan(*NESTED_GRAPH, NESTED_RESOURCES)
    assert shown(drawing) == ["update:group", "update:inner", "update:empty", "update:after"]
    group, inner, empty, after = drawing.nodes
    assert (group.nesting, group.counts) == (Nesting.COLLAPSED, "3: 2 complete, 1 failed")
    assert (inner.nesting, inner.counts) == (Nesting.COLLAPSED, "1: 1 complete")
    assert (empty.nesting, empty.counts) == (Nesting.NONE, "")
    assert after.nesting is Nesting.NONE
    assert group.reason == "group says why"


def test_the_clean_up_node_of_a_nested_stack_is_not_collapsed() -> None:
    drawing = plan(*NESTED_GRAPH, NESTED_RESOURCES, show_cleanup=True)
    cleanup = drawing.nodes[shown(drawing).index("cleanup:group")]
    assert cleanup.nesting is Nesting.NONE


def test_an_expanded_group_draws_its_members_by_path() -> None:
    drawing = plan(*NESTED_GRAPH, NESTED_RESOURCES, expand=frozenset({"group"}))
    assert shown(drawing) == [
        "update:group",
        "update:group/0",
        "update:group/1",
        "update:group/2",
        "update:inner",
        "update:empty",
        "update:after",
    ]
    group = drawing.nodes[0]
    assert group.nesting is Nesting.EXPANDED
    assert group.counts == "3: 2 complete, 1 failed"
    member = drawing.nodes[3]
    assert (member.name, member.cluster, member.status) == ("2", ("group",), "CREATE_FAILED")
    assert edges(drawing) == {
        ("update:group/0", "update:group/1", EdgeKind.DEPENDS),
        ("update:group", "update:group/0", EdgeKind.MEMBER),
        ("update:group", "update:group/2", EdgeKind.MEMBER),
        ("update:group", "update:after", EdgeKind.DEPENDS),
        ("update:inner", "update:after", EdgeKind.DEPENDS),
    }


def test_a_nested_stack_inside_an_expanded_one_stays_collapsed_unless_its_path_is_given() -> None:
    one = plan(*NESTED_GRAPH, NESTED_RESOURCES, expand=frozenset({"inner"}))
    deep = one.nodes[shown(one).index("update:inner/deep")]
    assert (deep.nesting, deep.counts, deep.cluster) == (
        Nesting.COLLAPSED,
        "1: 1 in progress",
        ("inner",),
    )
    both = plan(*NESTED_GRAPH, NESTED_RESOURCES, expand=frozenset({"inner", "inner/deep"}))
    assert "update:inner/deep/x" in shown(both)
    x = both.nodes[shown(both).index("update:inner/deep/x")]
    assert (x.cluster, x.status) == (("inner", "deep"), "CREATE_IN_PROGRESS")
    # A path under a collapsed stack opens nothing.
    alone = plan(*NESTED_GRAPH, NESTED_RESOURCES, expand=frozenset({"inner/deep"}))
    assert shown(alone) == shown(plan(*NESTED_GRAPH, NESTED_RESOURCES))


def test_without_nested_depth_nothing_collapses() -> None:
    flat = [{k: v for k, v in r.items() if k != "stack_id"} for r in NESTED_RESOURCES[:4]]
    drawing = plan(*NESTED_GRAPH, flat, expand=frozenset({"group"}))
    assert all(n.nesting is Nesting.NONE for n in drawing.nodes)
    assert len(drawing.nodes) == 4


def test_counts_follow_the_family_order() -> None:
    members = read_resources(
        [
            {"name": "a", "status": "DELETE_COMPLETE"},
            {"name": "b", "status": "CREATE_FAILED"},
            {"name": "c", "status": "INIT_COMPLETE"},
            {"name": "d", "status": "UPDATE_IN_PROGRESS"},
            {"name": "e", "status": "UPDATE_COMPLETE"},
            {"name": "f", "status": "CHECK_FAILED"},
        ]
    )
    assert (
        counts_text(members) == "6: 1 complete, 1 in progress, 2 failed, 1 not started, 1 cleaned"
    )
