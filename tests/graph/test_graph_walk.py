"""The order of a suspend (dependants first, as a delete) and a resume (dependencies first,
as a create)."""

from __future__ import annotations

import pytest

from conv_tasks.graph import NodeKey, Phase, plan_walk

# web needs app, app needs db and queue; log needs nothing.
DEPS = {
    "db": frozenset(),
    "queue": frozenset(),
    "app": frozenset({"db", "queue"}),
    "web": frozenset({"app"}),
    "log": frozenset(),
}


def _before(order: list[NodeKey], first: str, then: str) -> bool:
    names = [key.name for key in order]
    return names.index(first) < names.index(then)


def test_a_suspend_walks_dependants_first() -> None:
    graph = plan_walk(Phase.SUSPEND, DEPS, DEPS)
    assert {key.phase for key in graph.nodes} == {Phase.SUSPEND}
    order = graph.order()
    assert _before(order, "web", "app")
    assert _before(order, "app", "db") and _before(order, "app", "queue")
    assert set(graph.roots()) == {NodeKey(Phase.SUSPEND, "web"), NodeKey(Phase.SUSPEND, "log")}
    assert graph.predecessors(NodeKey(Phase.SUSPEND, "db")) == {NodeKey(Phase.SUSPEND, "app")}


def test_a_resume_walks_dependencies_first() -> None:
    graph = plan_walk(Phase.RESUME, DEPS, DEPS)
    order = graph.order()
    assert _before(order, "db", "app") and _before(order, "queue", "app")
    assert _before(order, "app", "web")
    assert set(graph.leaves()) == {NodeKey(Phase.RESUME, "web"), NodeKey(Phase.RESUME, "log")}


def test_a_missing_resource_keeps_the_order_through_it() -> None:
    # app was never created: web still waits for db (suspend: db after web).
    graph = plan_walk(Phase.SUSPEND, ["web", "db"], DEPS)
    assert graph.edges() == ((NodeKey(Phase.SUSPEND, "web"), NodeKey(Phase.SUSPEND, "db")),)
    assert len(plan_walk(Phase.RESUME, [], DEPS)) == 0


def test_only_suspend_and_resume_are_walks() -> None:
    with pytest.raises(ValueError, match="not a walk"):
        plan_walk(Phase.UPDATE, DEPS, DEPS)


def test_walk_nodes_round_trip_as_text() -> None:
    key = NodeKey.parse("suspend:web")
    assert key == NodeKey(Phase.SUSPEND, "web") and str(key) == "suspend:web"
    assert NodeKey.parse(str(NodeKey(Phase.RESUME, "a:b"))).name == "a:b"
