"""render_svg with the real Graphviz `dot`: one node per resource with its name and status as
text, the failed one marked; hostile names drawn as text and nothing else; nested stacks;
a 1,000-node graph untrimmed and a 10,000-node one trimmed; the cache; and dot missing,
failing or too slow."""

from __future__ import annotations

import itertools
import os
import stat
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from ui_graph_support import name, synthetic_stack

from conv_tasks.ui.graph import FOCUS_LIMIT, GraphRenderError, GraphView, render_svg
from conv_tasks.ui.graph.dot import REPLACEMENT, shortened
from conv_tasks.ui.graph.dot_command import run_dot
from conv_tasks.ui.graph.render import CACHE

NS = "{http://www.w3.org/2000/svg}"
DRAWN = ("svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text")
DRAWN_TAGS = {f"{NS}{t}" for t in DRAWN}


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    CACHE.clear()


def node_groups(view: GraphView) -> list[ET.Element]:
    root = ET.fromstring(view.svg)
    return [g for g in root.iter(f"{NS}g") if g.get("data-node") is not None]


def texts(group: ET.Element) -> list[str]:
    return [(t.text or "").replace("\xa0", " ") for t in group.iter(f"{NS}text")]


def assert_only_drawing(view: GraphView) -> None:
    root = ET.fromstring(view.svg)
    assert {e.tag for e in root.iter()} <= DRAWN_TAGS
    for element in root.iter():
        for attribute in element.attrib:
            assert (
                not attribute.startswith("on") and "href" not in attribute and ":" not in attribute
            )
    assert not view.svg.startswith("<?xml")
    assert "<!" not in view.svg


def graph_of(
    nodes: list[tuple[str, str]], edges: Sequence[tuple[str, str]] = (), traversal: str = "t1"
) -> dict[str, Any]:
    return {
        "stack": "s",
        "status": "CREATE_FAILED",
        "traversal": traversal,
        "nodes": [
            {"id": f"update:{n}", "phase": "update", "name": n, "status": s} for n, s in nodes
        ]
        + [
            {"id": f"cleanup:{n}", "phase": "cleanup", "name": n, "status": "CLEANED"}
            for n, _ in nodes
        ],
        "edges": [[f"update:{a}", f"update:{b}"] for a, b in edges]
        + [[f"update:{n}", f"cleanup:{n}"] for n, _ in nodes],
    }


def test_one_node_per_resource_with_name_and_status_and_the_failed_one_marked() -> None:
    graph = graph_of(
        [
            ("db", "CREATE_COMPLETE"),
            ("app", "CREATE_IN_PROGRESS"),
            ("broken", "CREATE_FAILED"),
            ("web", "NOT_STARTED"),
        ],
        [("db", "app"), ("app", "web")],
    )
    view = render_svg(graph, [])
    assert (view.node_count, view.total_nodes, view.trimmed, view.note) == (4, 4, False, "")
    groups = {g.get("data-node"): g for g in node_groups(view)}
    assert set(groups) == {"db", "app", "broken", "web"}
    assert texts(groups["db"]) == ["db", "CREATE_COMPLETE"]
    assert texts(groups["broken"]) == ["broken", "CREATE_FAILED"]
    assert groups["broken"].get("class") == "node status-create_failed failed"
    assert groups["broken"].get("data-status") == "CREATE_FAILED"
    assert groups["app"].get("class") == "node status-create_in_progress"
    assert [g for g in groups.values() if "failed" in (g.get("class") or "").split()] == [
        groups["broken"]
    ]
    edges = [g for g in ET.fromstring(view.svg).iter(f"{NS}g") if g.get("class") == "edge"]
    assert sorted((e.find(f"{NS}title").text or "") for e in edges) == [  # type: ignore[union-attr]
        "app \u2192 web",
        "db \u2192 app",
    ]
    assert_only_drawing(view)


def test_clean_up_nodes_on_demand() -> None:
    graph = graph_of([("db", "CREATE_COMPLETE"), ("app", "CREATE_COMPLETE")], [("db", "app")])
    view = render_svg(graph, [], show_cleanup=True)
    phases = sorted((g.get("data-node"), g.get("data-phase")) for g in node_groups(view))
    assert phases == [("app", "cleanup"), ("app", "update"), ("db", "cleanup"), ("db", "update")]
    cleanup = next(g for g in node_groups(view) if g.get("data-phase") == "cleanup")
    assert texts(cleanup)[1] == "clean-up: CLEANED"


HOSTILE = [
    'a"b',
    "back\\",
    "\\N\\G\\L\\n\\l\\E",
    'x\\"];evil [label="',
    "<script>alert(1)</script>",
    "&amp;",
    "&lt;b&gt;",
    "&#60;",
    "]]>",
    "-->",
    "<!--",
    "a\nb",
    "🦄 ünï",
    "مرحبا",
    "{a|b}<p>",
    "subgraph",
    "#c",
    '"',
    "'",
    "x" * 255,
    "javascript:alert(1)",
    "<svg onload=alert(1)>",
    '<a href="javascript:x">k</a>',
    "\u202etxt",
    "n0",
    "gnode-1",
]


def test_hostile_names_are_drawn_as_text_and_nothing_else() -> None:
    nodes = [(n, "CREATE_FAILED" if i % 2 else "CREATE_COMPLETE") for i, n in enumerate(HOSTILE)]
    edges = list(itertools.pairwise(HOSTILE))
    resources = [
        {"name": n, "status": s, "status_reason": f"<img src=x onerror=alert(1)> {n}"}
        for n, s in nodes
    ]
    view = render_svg(graph_of(nodes, edges), resources)
    groups = node_groups(view)
    by_name = {g.get("data-node"): g for g in groups}
    assert len(groups) == len(by_name) == len(HOSTILE)
    assert set(by_name) == set(HOSTILE)
    for n, status in nodes:
        group = by_name[n]
        shown = "".join(c if c.isprintable() else REPLACEMENT for c in n)
        assert texts(group) == [shortened(shown), status]
        assert group.get("data-status") == status
        title = group.find(f"{NS}title")
        assert (
            title is not None and title.text == f"{n}: {status}\n<img src=x onerror=alert(1)> {n}"
        )
    assert len(ET.fromstring(view.svg).findall(f".//{NS}g[@class='edge']")) == len(edges)
    assert_only_drawing(view)
    assert "<script" not in view.svg and "<img" not in view.svg and "<a " not in view.svg


def test_a_group_is_one_node_with_counts_until_expanded() -> None:
    graph = graph_of([('gr"oup', "CREATE_FAILED"), ("user", "NOT_STARTED")], [('gr"oup', "user")])
    resources: list[dict[str, Any]] = [
        {"name": 'gr"oup', "status": "CREATE_FAILED", "stack_id": "T", "physical_id": "G"},
        {"name": "user", "status": "INIT_COMPLETE", "stack_id": "T", "physical_id": None},
        *[
            {"name": str(i), "status": "CREATE_COMPLETE", "stack_id": "G", "physical_id": f"m{i}"}
            for i in range(10)
        ],
        *[
            {"name": str(i), "status": "CREATE_FAILED", "stack_id": "G", "physical_id": f"m{i}"}
            for i in (10, 11)
        ],
    ]
    collapsed = render_svg(graph, resources)
    groups = {g.get("data-node"): g for g in node_groups(collapsed)}
    assert set(groups) == {'gr"oup', "user"}
    group = groups['gr"oup']
    assert group.get("data-collapsed") == "true"
    assert texts(group) == ['gr"oup (12: 10 complete, 2 failed)', "CREATE_FAILED"]

    expanded = render_svg(graph, resources, expand=frozenset({'gr"oup'}))
    paths = sorted(str(g.get("data-path")) for g in node_groups(expanded))
    assert paths == sorted(['gr"oup', *[f'gr"oup/{i}' for i in range(12)], "user"])
    failed = {
        g.get("data-path") for g in node_groups(expanded) if "failed" in (g.get("class") or "")
    }
    assert failed == {'gr"oup', 'gr"oup/10', 'gr"oup/11'}
    clusters = [
        g for g in ET.fromstring(expanded.svg).iter(f"{NS}g") if g.get("class") == "cluster nested"
    ]
    assert [texts(c) for c in clusters] == [['gr"oup']]
    assert_only_drawing(expanded)


def test_a_thousand_nodes_are_drawn_whole_when_the_limit_allows() -> None:
    graph, resources = synthetic_stack(1000, failed={500}, in_progress={10})
    view = render_svg(graph, resources, focus_limit=1000)
    assert (view.node_count, view.total_nodes, view.trimmed) == (1000, 1000, False)
    groups = node_groups(view)
    assert sorted(str(g.get("data-node")) for g in groups) == [name(i) for i in range(1000)]
    assert [g.get("data-node") for g in groups if "failed" in (g.get("class") or "")] == [name(500)]


def test_a_thousand_nodes_are_trimmed_by_default() -> None:
    graph, resources = synthetic_stack(1000, failed={500}, in_progress={10})
    view = render_svg(graph, resources)
    assert FOCUS_LIMIT == 300
    assert view.trimmed and view.total_nodes == 1000
    drawn = {g.get("data-node") for g in node_groups(view)}
    assert {name(500), name(10)} <= drawn
    assert len(drawn) == view.node_count < 20
    assert view.note.startswith("The graph has 1,000 nodes, more than 300: only its 2 failed")


def test_ten_thousand_nodes_trim_to_failed_and_in_progress_ones_and_neighbours_and_render() -> None:
    failed = {1234, 9876}
    in_progress = {5000}
    graph, resources = synthetic_stack(10_000, failed=failed, in_progress=in_progress)
    view = render_svg(graph, resources)
    assert view.total_nodes == 10_000
    assert view.trimmed
    groups = node_groups(view)
    drawn = {g.get("data-node") for g in groups}
    focus_names = {name(i) for i in failed | in_progress}
    assert focus_names <= drawn
    assert len(groups) == view.node_count == len(drawn)
    # Every other node drawn is a direct neighbour of a failed or in-progress one.
    requires = {r["name"]: set(r["requires"]) for r in resources}
    for other in drawn - focus_names:
        assert requires[other] & focus_names or any(other in requires[f] for f in focus_names)
    assert f"({10_000 - len(drawn):,} nodes left out)" in view.note
    assert_only_drawing(view)


def test_ten_thousand_failed_nodes_stay_within_the_limit() -> None:
    graph, resources = synthetic_stack(10_000, failed=set(range(10_000)))
    view = render_svg(graph, resources)
    assert view.node_count == len(node_groups(view)) == FOCUS_LIMIT
    assert "only the first 300" in view.note


def test_a_stack_without_a_traversal_draws_an_empty_graph() -> None:
    view = render_svg(
        {"stack": "s", "status": "INIT_COMPLETE", "traversal": None, "nodes": [], "edges": []}, []
    )
    assert (view.node_count, view.total_nodes, view.trimmed) == (0, 0, False)
    assert node_groups(view) == []
    assert view.svg.startswith("<svg ")


def test_drawings_are_cached_per_traversal_statuses_and_options() -> None:
    graph = graph_of([("db", "CREATE_IN_PROGRESS"), ("app", "NOT_STARTED")], [("db", "app")])
    first = render_svg(graph, [])
    assert render_svg(graph, []) is first
    assert (CACHE.hits, CACHE.misses, len(CACHE)) == (1, 1, 1)
    # A status changed: drawn again.
    moved = graph_of([("db", "CREATE_COMPLETE"), ("app", "NOT_STARTED")], [("db", "app")])
    second = render_svg(moved, [])
    assert second is not first
    assert "CREATE_COMPLETE" in second.svg and "CREATE_IN_PROGRESS" not in second.svg
    # Another traversal, other options, a resource's reason: each its own drawing.
    assert (
        render_svg(
            graph_of(
                [("db", "CREATE_IN_PROGRESS"), ("app", "NOT_STARTED")],
                [("db", "app")],
                traversal="t2",
            ),
            [],
        )
        is not first
    )
    assert render_svg(graph, [], show_cleanup=True) is not first
    assert render_svg(graph, [], focus_limit=1) is not first
    assert render_svg(graph, [], expand=frozenset({"db"})) is not first
    assert (
        render_svg(
            graph, [{"name": "db", "status": "CREATE_IN_PROGRESS", "status_reason": "waiting"}]
        )
        is not first
    )
    assert render_svg(graph, []) is first


def test_the_cache_is_bounded() -> None:
    from conv_tasks.ui.graph.cache import CACHE_ENTRIES

    for n in range(CACHE_ENTRIES + 5):
        render_svg(graph_of([("db", "CREATE_COMPLETE")], traversal=f"t{n}"), [])
    assert len(CACHE) == CACHE_ENTRIES


def test_a_focus_limit_below_one_is_refused() -> None:
    with pytest.raises(GraphRenderError, match="focus_limit is 0"):
        render_svg(graph_of([("db", "CREATE_COMPLETE")]), [], focus_limit=0)


def test_dot_missing_is_a_graph_render_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GraphRenderError, match="Graphviz's 'dot' command is not installed"):
        render_svg(graph_of([("db", "CREATE_COMPLETE")]), [])
    assert len(CACHE) == 0  # a failure is not kept


def test_dot_failing_is_a_graph_render_error_with_what_it_said() -> None:
    with pytest.raises(GraphRenderError, match=r"'dot' failed \(exit status 1\): .*syntax error"):
        run_dot("digraph { a -> ")


def test_dot_too_slow_is_stopped(tmp_path: Path) -> None:
    slow = tmp_path / "slow-dot"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(slow.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(GraphRenderError, match=r"took longer than 0.5 s .* and was stopped"):
        run_dot("digraph {}", binary=str(slow), timeout=0.5)


def test_dot_not_runnable_is_a_graph_render_error(tmp_path: Path) -> None:
    plain = tmp_path / "dot"
    plain.write_text("not a program")
    os.chmod(plain, 0o644)
    with pytest.raises(GraphRenderError, match="cannot be run"):
        run_dot("digraph {}", binary=str(plain))


def test_a_malformed_answer_is_refused_by_render_svg_and_nothing_is_cached() -> None:
    with pytest.raises(GraphRenderError, match=r"nodes\[0\]\.status must be a string"):
        render_svg(
            {
                "traversal": "t",
                "nodes": [{"id": "update:a", "phase": "update", "name": "a", "status": None}],
                "edges": [],
            },
            [],
        )
    with pytest.raises(GraphRenderError, match=r"resources\[0\] must be a mapping"):
        render_svg(graph_of([("db", "CREATE_COMPLETE")]), ["db"])  # type: ignore[list-item]
    assert len(CACHE) == 0


def test_fields_a_drawing_does_not_show_do_not_miss_the_cache() -> None:
    graph = graph_of([("db", "CREATE_COMPLETE")])
    resource = {"name": "db", "status": "CREATE_COMPLETE", "updated_at": "2026-11-26T10:00:00"}
    first = render_svg(graph, [resource])
    later = {**resource, "updated_at": "2026-11-26T10:05:00", "version": 2}
    assert render_svg(graph, [later]) is first
