"""Old versions are purged in the reverse order of their own dependencies (issue: clean-up order
when an update inverts dependencies).

A small model of a stack runs sequences of random templates through the planner: each graph is
walked in a random order that respects its edges, updates replace, update in place or leave
resources alone, and clean-ups delete the versions that are out of date. As in the engine,
every convergence writes a new version row: an update in place moves the physical resource to
it, a replacement makes a new one. Every version remembers which physical resource of each
resource it required when it converged; the property is that no physical resource is ever
deleted while a version that used it still exists.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from conv_tasks.graph import ExistingVersion, NodeKey, Phase, plan_traversal

POOL = [f"r{i}" for i in range(7)]


@dataclass
class Version:
    id: int
    name: str
    requires: frozenset[str]
    physical: int | None
    uses: dict[str, int] = field(default_factory=dict)  # name -> physical resource it uses
    head: bool = True


@dataclass
class Stack:
    versions: dict[int, Version] = field(default_factory=dict)
    next_id: int = 1

    def existing(self) -> list[ExistingVersion]:
        counts: dict[str, int] = {}
        rows = []
        for v in sorted(self.versions.values(), key=lambda v: v.id):
            counts[v.name] = counts.get(v.name, 0) + 1
            rows.append(ExistingVersion(v.id, v.name, counts[v.name], v.requires, v.head))
        return rows

    def head(self, name: str) -> Version | None:
        heads = [v for v in self.versions.values() if v.name == name and v.head]
        return max(heads, key=lambda v: v.id) if heads else None

    def new_version(
        self, name: str, requires: frozenset[str], physical: int | None = None
    ) -> Version:
        """A converged version: on `physical` (update in place) or on a new one."""
        version = Version(self.next_id, name, requires, physical or self.next_id)
        version.uses = self._uses(requires)
        self.next_id += 1
        self.versions[version.id] = version
        return version

    def _uses(self, requires: frozenset[str]) -> dict[str, int]:
        uses = {}
        for name in requires:
            head = self.head(name)
            assert head is not None and head.physical is not None, f"{name} has nothing to use"
            uses[name] = head.physical
        return uses

    def delete(self, version: Version) -> None:
        if version.physical is not None:
            users = [
                v.id
                for v in self.versions.values()
                if v.id != version.id and v.uses.get(version.name) == version.physical
            ]
            assert not users, f"{version.name} v{version.id} deleted while {users} use it"
        del self.versions[version.id]


def run_traversal(stack: Stack, template: dict[str, frozenset[str]], rng: random.Random) -> None:
    plan = plan_traversal(stack.existing(), template)
    graph = plan.graph
    waiting = {node: len(graph.predecessors(node)) for node in graph.nodes}
    ready = sorted(node for node, count in waiting.items() if count == 0)
    replaced: set[str] = set()
    while ready:
        node = ready.pop(rng.randrange(len(ready)))
        if node.phase == Phase.UPDATE:
            _update(stack, node.name, template[node.name], replaced, rng)
        else:
            for version in [v for v in stack.versions.values() if v.name == node.name]:
                if not version.head or node.name not in template:
                    stack.delete(version)
        for successor in graph.successors(node):
            waiting[successor] -= 1
            if waiting[successor] == 0:
                ready.append(successor)


def _update(
    stack: Stack, name: str, requires: frozenset[str], replaced: set[str], rng: random.Random
) -> None:
    head = stack.head(name)
    if head is None:
        stack.new_version(name, requires)
        replaced.add(name)
        return
    # A resource whose requirements changed, or that uses one that was replaced, has a new
    # definition (its properties name the new version) and must converge; otherwise it may.
    stale = head.requires != requires or head.uses != stack._uses(requires)
    choice = rng.choice(("replace", "in place") if stale else ("replace", "in place", "none"))
    if choice == "none":
        return
    head.head = False
    if choice == "replace":
        stack.new_version(name, requires)
        replaced.add(name)
    else:  # the physical resource moves to the new version; the old row goes at once
        stack.new_version(name, requires, head.physical)
        del stack.versions[head.id]


@st.composite
def templates(draw: st.DrawFn) -> dict[str, frozenset[str]]:
    """A random DAG over a random order of the pool, so that later templates may invert
    earlier dependencies."""
    chosen = draw(st.lists(st.sampled_from(POOL), unique=True, min_size=1, max_size=len(POOL)))
    order = draw(st.permutations(chosen))
    return {
        name: frozenset(draw(st.sets(st.sampled_from(order[:i])))) if i else frozenset()
        for i, name in enumerate(order)
    }


@settings(max_examples=400, deadline=None)
@given(st.lists(templates(), min_size=2, max_size=5), st.integers(0, 2**32))
def test_no_version_is_deleted_while_a_version_uses_it(
    sequence: list[dict[str, frozenset[str]]], seed: int
) -> None:
    rng = random.Random(seed)
    stack = Stack()
    for template in sequence:
        run_traversal(stack, template, rng)
    run_traversal(stack, {}, rng)  # and a stack delete
    assert not stack.versions


def test_inverted_dependency_purges_the_old_user_first() -> None:
    """Before: B uses A. After: A uses B, both replaced. Old B must go before old A."""
    stack = Stack()
    rng = random.Random(1)
    run_traversal(stack, {"A": frozenset(), "B": frozenset({"A"})}, rng)
    old_a, old_b = stack.head("A"), stack.head("B")
    assert old_a is not None and old_b is not None
    plan = plan_traversal(stack.existing(), {"B": frozenset(), "A": frozenset({"B"})})
    edges = set(plan.graph.edges())
    assert (NodeKey(Phase.CLEANUP, "B"), NodeKey(Phase.CLEANUP, "A")) in edges
    assert (NodeKey(Phase.CLEANUP, "A"), NodeKey(Phase.CLEANUP, "B")) not in edges
    # The old B must also outlive the update of A, which used nothing of it but is next to it.
    assert (NodeKey(Phase.UPDATE, "A"), NodeKey(Phase.CLEANUP, "B")) in edges
