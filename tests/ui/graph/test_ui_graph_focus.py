"""Trimming a large graph: above the focus limit only failed and in-progress nodes and their
direct neighbours are drawn, never more than the limit, with a note saying what was left
out. Synthetic stacks of 1,000 and 10,000 resources (correctness only: no timings)."""

from __future__ import annotations

from ui_graph_support import name, synthetic_stack

from conv_tasks.ui.graph.drawing import Drawing, plan_drawing
from conv_tasks.ui.graph.focus import focus
from conv_tasks.ui.graph.inputs import read_graph, read_resources
from conv_tasks.ui.graph.nesting import nest


def drawing_of(n: int, **statuses: set[int]) -> Drawing:
    graph, resources = synthetic_stack(n, **statuses)  # type: ignore[arg-type]
    return plan_drawing(
        read_graph(graph), nest(read_resources(resources)), show_cleanup=False, expand=frozenset()
    )


def neighbours(drawing: Drawing, names: set[str]) -> set[str]:
    found = set()
    for e in drawing.edges:
        tail, head = drawing.nodes[e.tail].name, drawing.nodes[e.head].name
        if tail in names:
            found.add(head)
        if head in names:
            found.add(tail)
    return found


def test_a_graph_within_the_limit_is_drawn_whole() -> None:
    drawing = drawing_of(300, failed={10})
    result = focus(drawing, 300)
    assert result.drawing is drawing
    assert (result.total, result.trimmed, result.note) == (300, False, "")


def test_above_the_limit_only_failed_and_in_progress_nodes_and_neighbours_are_drawn() -> None:
    drawing = drawing_of(1000, failed={500, 501}, in_progress={260})
    result = focus(drawing, 300)
    focus_names = {name(500), name(501), name(260)}
    expected = focus_names | neighbours(drawing, focus_names)
    drawn = {n.name for n in result.drawing.nodes}
    assert drawn == expected
    assert result.total == 1000
    assert result.trimmed
    assert result.note == (
        "The graph has 1,000 nodes, more than 300: only its 3 failed or in-progress nodes "
        f"and their direct neighbours are drawn ({1000 - len(expected):,} nodes left out)."
    )
    # The edges kept are exactly those between drawn nodes, re-indexed.
    kept = {
        (result.drawing.nodes[e.tail].name, result.drawing.nodes[e.head].name)
        for e in result.drawing.edges
    }
    every = {(drawing.nodes[e.tail].name, drawing.nodes[e.head].name) for e in drawing.edges}
    assert kept == {(a, b) for a, b in every if a in expected and b in expected}
    # Traversal order is kept.
    assert [n.name for n in result.drawing.nodes] == sorted(drawn)


def test_ten_thousand_nodes_trim_to_the_failed_and_in_progress_ones_and_their_neighbours() -> None:
    failed = {4321, 9999}
    in_progress = {100, 7000, 7001}
    drawing = drawing_of(10_000, failed=failed, in_progress=in_progress)
    assert len(drawing.nodes) == 10_000
    result = focus(drawing, 300)
    focus_names = {name(i) for i in failed | in_progress}
    expected = focus_names | neighbours(drawing, focus_names)
    assert {n.name for n in result.drawing.nodes} == expected
    assert len(expected) < 30
    assert result.total == 10_000
    assert "10,000 nodes" in result.note
    assert f"({10_000 - len(expected):,} nodes left out)" in result.note


def test_too_many_failed_nodes_are_cut_to_the_limit_failed_ones_first() -> None:
    failed = set(range(0, 1000, 2))  # 500 failed
    in_progress = {999}
    drawing = drawing_of(1000, failed=failed, in_progress=in_progress)
    result = focus(drawing, 300)
    assert len(result.drawing.nodes) == 300
    assert all(n.status == "CREATE_FAILED" for n in result.drawing.nodes)
    assert result.note.startswith("The graph has 1,000 nodes, more than 300: only failed and")
    assert "only the first 300, failed ones first (700 nodes left out)." in result.note


def test_neighbours_fill_what_room_the_failed_nodes_leave() -> None:
    drawing = drawing_of(1000, failed={500, 600})
    result = focus(drawing, 4)
    names = [n.name for n in result.drawing.nodes]
    assert len(names) == 4
    assert {name(500), name(600)} <= set(names)
    assert set(names) - {name(500), name(600)} <= neighbours(drawing, {name(500)})


def test_nothing_failed_or_in_progress_draws_nothing_and_says_so() -> None:
    result = focus(drawing_of(1000), 300)
    assert result.drawing.nodes == ()
    assert result.drawing.edges == ()
    assert result.note == (
        "The graph has 1,000 nodes, more than 300, and none is failed or in progress: "
        "none is drawn (1,000 nodes left out)."
    )
