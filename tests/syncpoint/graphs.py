"""Building SyncPoint specs for tests from a plain successor map."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from conv_tasks.syncpoint import STACK_POINT, PointSpec


def points(successors: Mapping[str, Iterable[str]]) -> dict[str, PointSpec]:
    """Specs for the graph `successors` (node -> the nodes after it), leaves feeding the
    stack's own point, as the engine builds them."""
    nodes = set(successors) | {s for after in successors.values() for s in after}
    waits: dict[str, list[str]] = {node: [] for node in nodes}
    for node, after in successors.items():
        for succ in after:
            waits[succ].append(node)
    specs = {
        node: PointSpec(tuple(waits[node]), tuple(successors.get(node, ())) or (STACK_POINT,))
        for node in nodes
    }
    leaves = [node for node in nodes if not successors.get(node)]
    specs[STACK_POINT] = PointSpec(tuple(leaves), ())
    return specs
