"""The DOT source of a drawing: escaping of user text, ids and classes of the renderer's own,
clusters for open nested stacks. Pure: no `dot` run here (test_ui_graph_render runs it)."""

from __future__ import annotations

import re

import pytest

from conv_tasks.ui.graph.dot import dot_source, dot_text, label_lines, node_lines, shortened
from conv_tasks.ui.graph.drawing import Drawing, DrawnEdge, DrawnNode, EdgeKind, Nesting


@pytest.mark.parametrize(
    ("text", "dot"),
    [
        ("web", '"web"'),
        ('a"b', '"a\\"b"'),
        ("back\\", '"back\\\\"'),
        ("\\N", '"\\\\N"'),
        ("x&amp;", '"x&amp;amp;"'),
        ("<b>", '"<b>"'),
        ("a\nb\r\tc\x00", '"a\ufffdb\ufffd\ufffdc\ufffd"'),
        ("\u2028\u202e", '"\ufffd\ufffd"'),
        ("🦄 ünï", '"🦄 ünï"'),
    ],
)
def test_dot_text_escapes_what_dot_and_labels_read_specially(text: str, dot: str) -> None:
    assert dot_text(text) == dot


def test_no_escaped_text_can_end_its_string() -> None:
    # Whatever the text, the quoted string has no unescaped quote inside and no line break.
    for text in ['"', '\\"', "\\", '\\\\"', 'x\\"];n9 [label="', "\n]\n", '"];}digraph{"']:
        quoted = dot_text(text)
        inner = quoted[1:-1]
        assert "\n" not in quoted
        assert re.search(r'(?<!\\)(?:\\\\)*"', inner) is None, quoted


def test_long_names_are_shortened_on_the_label() -> None:
    assert shortened("x" * 48) == "x" * 48
    assert shortened("x" * 49) == "x" * 47 + "\u2026"


def test_a_label_is_the_name_then_the_status_and_a_nested_stack_shows_counts() -> None:
    plain = DrawnNode(("web",), "update", "CREATE_COMPLETE")
    assert node_lines(plain) == ("web", "CREATE_COMPLETE")
    cleanup = DrawnNode(("web",), "cleanup", "CLEANED")
    assert node_lines(cleanup) == ("web", "clean-up: CLEANED")
    check = DrawnNode(("web",), "check", "CHECK_FAILED")
    assert node_lines(check) == ("web", "check: CHECK_FAILED")
    group = DrawnNode(
        ("group",),
        "update",
        "CREATE_FAILED",
        nesting=Nesting.COLLAPSED,
        counts="12: 10 complete, 2 failed",
    )
    assert node_lines(group) == ("group (12: 10 complete, 2 failed)", "CREATE_FAILED")
    assert label_lines(node_lines(group)) == '"group (12: 10 complete, 2 failed)\\nCREATE_FAILED"'


DRAWING = Drawing(
    stack="s",
    status="CREATE_FAILED",
    nodes=(
        DrawnNode(("a",), "update", "CREATE_COMPLETE"),
        DrawnNode(
            ('g"]',), "update", "CREATE_FAILED", "", Nesting.EXPANDED, "2: 1 complete, 1 failed"
        ),
        DrawnNode(('g"]', "0"), "update", "CREATE_COMPLETE"),
        DrawnNode(('g"]', "1"), "update", "CREATE_FAILED", "", Nesting.COLLAPSED, "1: 1 failed"),
        DrawnNode(("a",), "cleanup", "CLEANED"),
    ),
    edges=(
        DrawnEdge(0, 1),
        DrawnEdge(1, 2, EdgeKind.MEMBER),
        DrawnEdge(2, 3),
        DrawnEdge(0, 4),
    ),
)


def test_dot_source_numbers_nodes_and_edges_and_puts_open_stacks_in_clusters() -> None:
    source = dot_source(DRAWING)
    lines = source.splitlines()
    assert lines[0] == "digraph stack {"
    assert lines[-1] == "}"
    nodes = [line.strip() for line in lines if re.match(r"\s*n\d+ \[", line)]
    assert [re.match(r"n(\d+) \[id=\"gnode-(\d+)\"", n).groups() for n in nodes] == [  # type: ignore[union-attr]
        ("0", "0"),
        ("1", "1"),
        ("4", "4"),
        ("2", "2"),
        ("3", "3"),
    ]
    assert 'class="status-create_failed failed"' in nodes[1]
    assert 'class="status-create_complete"' in nodes[0]
    assert "peripheries=2" in nodes[4]  # the collapsed one
    assert "peripheries=2" not in nodes[1]  # open
    assert 'label="g\\"]\\nCREATE_FAILED"' not in source  # an open stack keeps its counts
    assert 'label="g\\"] (2: 1 complete, 1 failed)\\nCREATE_FAILED"' in nodes[1]
    # The members are inside the cluster of "g"]", whose label is escaped.
    start = lines.index("  subgraph cluster_0 {")
    assert 'id="gcluster-0"' in lines[start + 1]
    assert 'label="g\\"]"' in lines[start + 1]
    assert lines[start + 2].strip().startswith("n2 [")
    assert lines[start + 3].strip().startswith("n3 [")
    assert lines[start + 4] == "  }"
    edges = [line.strip() for line in lines if "->" in line]
    assert edges == [
        'n0 -> n1 [id="gedge-0"];',
        'n1 -> n2 [id="gedge-1", class="member", style=dashed, arrowhead=none];',
        'n2 -> n3 [id="gedge-2"];',
        'n0 -> n4 [id="gedge-3"];',
    ]


def test_nested_open_stacks_are_nested_clusters() -> None:
    drawing = Drawing(
        stack="s",
        status="X",
        nodes=(
            DrawnNode(("a",), "update", "CREATE_COMPLETE", "", Nesting.EXPANDED, "1: 1 complete"),
            DrawnNode(
                ("a", "b"), "update", "CREATE_COMPLETE", "", Nesting.EXPANDED, "1: 1 complete"
            ),
            DrawnNode(("a", "b", "c"), "update", "CREATE_COMPLETE"),
        ),
        edges=(),
    )
    lines = [line.rstrip() for line in dot_source(drawing).splitlines()]
    first = lines.index("  subgraph cluster_0 {")
    assert lines[first + 3] == "    subgraph cluster_1 {"
    assert 'label="a/b"' in lines[first + 4]
    assert lines[first + 5].strip().startswith("n2 [")


# A node statement as dot_source writes one: user text only inside the label's quotes.
NODE_STATEMENT = re.compile(
    r'n\d+ \[id="gnode-\d+", class="status-[a-z0-9_-]+( failed)?", '
    r'label="(?:[^"\\\n]|\\.)*", style="[a-z,]+", fillcolor="#[0-9a-f]{6}", '
    r'color="#[0-9a-f]{6}", penwidth=[0-9.]+(, peripheries=2)?\];'
)


@pytest.mark.parametrize(
    "hostile",
    [
        'x"; n99 [label="pwned"]; n0 -> n99; "',
        'x\\"]; n99 [label="pwned',
        "x\\",
        "line\n}\ndigraph x {",
        "<b>html</b>",
        '" URL="javascript:alert(1)',
    ],
)
def test_no_user_text_reaches_dot_outside_a_label(hostile: str) -> None:
    drawing = Drawing(
        stack=hostile,
        status=hostile,
        nodes=(
            DrawnNode((hostile,), "update", hostile, hostile, Nesting.EXPANDED, hostile),
            DrawnNode((hostile, hostile), "update", hostile, hostile),
        ),
        edges=(DrawnEdge(0, 1, EdgeKind.MEMBER),),
    )
    lines = [line.strip() for line in dot_source(drawing).splitlines()]
    statements = [line for line in lines if re.match(r"n\d+ \[", line)]
    assert len(statements) == 2
    for statement in statements:
        assert NODE_STATEMENT.fullmatch(statement), statement
    assert [line for line in lines if re.match(r"n\d+ -> ", line)] == [
        'n0 -> n1 [id="gedge-0", class="member", style=dashed, arrowhead=none];'
    ]
    cluster_label = next(line for line in lines if 'id="gcluster-0"' in line)
    assert re.fullmatch(
        r'graph \[id="gcluster-0", class="nested", label="(?:[^"\\\n]|\\.)*", '
        r'style="rounded,dashed", color="#8c8c8c", fontsize=9\];',
        cluster_label,
    ), cluster_label
