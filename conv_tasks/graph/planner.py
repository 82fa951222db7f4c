"""Planning a stack traversal (seed 001): which version of each resource to converge, and the
graph that updates in dependency order and cleans up in reverse dependency order.

Pure decisions on values handed in: the caller loads the rows and writes the outcome (new rows,
SyncPoints, the traversal ID). This module must never do I/O. Resources are keyed by name, so
every version of a name shares one CLEANUP node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from conv_tasks.errors import CycleError, Problem, TemplateError

from .cycles import find_cycle
from .nodes import NodeKey, Phase
from .toposort import kahn_order, strongly_connected
from .traversal import TraversalGraph

Adjacency = dict[NodeKey, set[NodeKey]]


@dataclass(frozen=True)
class ExistingVersion:
    """One row of the resource table: one version of a resource."""

    id: int
    name: str
    version: int
    requires: frozenset[str]  # what this version depended on when it last converged
    is_head: bool  # no newer version replaced it


@dataclass(frozen=True)
class TraversalPlan:
    """What a traversal will do. converge maps every template name, in template order, to the
    id of the row to converge, or None when a new row must be created."""

    converge: Mapping[str, int | None]
    new_names: tuple[str, ...]
    removed: tuple[str, ...]
    graph: TraversalGraph


def plan_traversal(
    existing: Iterable[ExistingVersion], template_deps: Mapping[str, frozenset[str]]
) -> TraversalPlan:
    """Plan the traversal that converges `existing` rows to the template `template_deps`
    (name -> names it requires). A stack delete is plan_traversal(rows, {}).

    Raises TemplateError if a resource requires a name that is not in the template, and
    CycleError (naming the resources on it) if the template's dependencies form a cycle.
    """
    _check_template(template_deps)
    rows = list(existing)
    heads: dict[str, ExistingVersion] = {}
    for row in rows:
        best = heads.get(row.name)
        if row.is_head and (best is None or (row.version, row.id) > (best.version, best.id)):
            heads[row.name] = row
    converge = {name: (heads[name].id if name in heads else None) for name in template_deps}
    removed = tuple(sorted({row.name for row in rows} - template_deps.keys()))
    return TraversalPlan(
        converge=MappingProxyType(converge),
        new_names=tuple(name for name, row_id in converge.items() if row_id is None),
        removed=removed,
        graph=_build_graph(rows, template_deps, removed),
    )


def _check_template(template_deps: Mapping[str, frozenset[str]]) -> None:
    problems = [
        Problem(f"resources.{name}", f"depends on {required!r}, which is not in the template.")
        for name, requires in template_deps.items()
        for required in sorted(r for r in requires if r not in template_deps)
    ]
    if problems:
        raise TemplateError(problems)
    cycle = find_cycle(template_deps)
    if cycle is not None:
        raise CycleError(cycle)


def _build_graph(
    rows: list[ExistingVersion],
    template_deps: Mapping[str, frozenset[str]],
    removed: tuple[str, ...],
) -> TraversalGraph:
    """Three kinds of edge, in order of authority.

    - hard: E1 (update in dependency order) and E2 (clean up a resource only after updating
      it). Never dropped, and acyclic by themselves (the template is).
    - versions: what each stored version required (its `requires`) must be purged after it.
      This is the order old versions are really deleted in, so it outranks the template.
    - template: E3, clean up in the template's reverse dependency order. Where it contradicts
      the versions' own order (a dependency that an update inverted) it is dropped, and the
      clean-up then waits for the update of the resource that requires it instead.
    """
    # Nodes are numbered: UPDATE of template name i is node i, CLEANUP of name i (template
    # names, then removed names) is node len(template) + i.
    names = [*template_deps, *removed]
    number = {name: i for i, name in enumerate(names)}
    shift = len(template_deps)
    keys = [NodeKey(Phase.UPDATE, name) for name in template_deps]
    keys += [NodeKey(Phase.CLEANUP, name) for name in names]
    hard: list[set[int]] = [set() for _ in keys]
    template: dict[int, set[int]] = {}
    for name, requires in template_deps.items():
        i = number[name]
        hard[i].add(shift + i)  # E2: clean up only after updating
        for required in requires:
            r = number[required]
            hard[r].add(i)  # E1: update in dependency order
            template.setdefault(shift + i, set()).add(shift + r)  # E3

    versions = _version_edges(rows, number, shift)
    combined = _merge(hard, versions)
    _, left_over = kahn_order(combined)
    if left_over:  # only stored versions left behind by failed traversals can disagree
        _drop_conflicting(left_over, combined, versions)
        combined = _merge(hard, versions)
    with_template = _merge(combined, template)
    _, left_over = kahn_order(with_template)
    if left_over:
        kept = {i: set(after) for i, after in template.items()}
        _drop_conflicting(left_over, with_template, kept)
        for user, used in template.items():
            for dropped in used - kept.get(user, set()):
                # E3 gave way: the old version of the required resource must still outlive
                # the update of its user, which may use it until it has converged.
                combined[user - shift].add(dropped)
        with_template = _merge(combined, kept)
    return TraversalGraph._from_adjacency(keys, with_template)


def _version_edges(
    rows: list[ExistingVersion], number: Mapping[str, int], shift: int
) -> dict[int, set[int]]:
    """cleanup:user -> cleanup:used for each stored version of `user` that required `used`."""
    edges: dict[int, set[int]] = {}
    for row in rows:
        user = shift + number[row.name]
        for required in row.requires:
            used = number.get(required)
            if used is not None and required != row.name:
                edges.setdefault(user, set()).add(shift + used)
    return edges


def _merge(base: list[set[int]], extra: dict[int, set[int]]) -> list[set[int]]:
    return [after | extra[i] if i in extra else set(after) for i, after in enumerate(base)]


def _drop_conflicting(
    left_over: list[int], combined: list[set[int]], soft: dict[int, set[int]]
) -> None:
    """Remove the `soft` edges that lie on a cycle of `combined`, keeping every other edge.

    Any cycle lies within one strongly connected component of the nodes Kahn's algorithm left
    unsorted, and the other edges alone are acyclic, so dropping the soft edges inside each
    such component breaks every cycle while keeping soft edges that merely lead out of one.
    """
    stuck = set(left_over)
    within: list[list[int]] = [[] for _ in combined]
    for i in left_over:
        within[i] = [j for j in combined[i] if j in stuck]
    component = strongly_connected(left_over, within)
    for i in left_over:
        if i in soft:
            soft[i] = {j for j in soft[i] if component[j] != component[i]}
