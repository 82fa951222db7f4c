"""The graph of a walk over a stack's resources that changes no definition: suspend, resume.

A suspend walks the resources in reverse dependency order, as a delete does (a resource is
suspended only after everything that depends on it); a resume walks them in dependency
order, as a create does. Only the named resources (those that exist) get a node; an edge
between two of them is kept when one requires the other directly or through resources
that have none. Pure: names in, graph out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .nodes import NodeKey, Phase
from .traversal import TraversalGraph

_WALKS = (Phase.SUSPEND, Phase.RESUME)


def plan_walk(
    phase: Phase, names: Iterable[str], template_deps: Mapping[str, frozenset[str]]
) -> TraversalGraph:
    """The graph of a `phase` walk (SUSPEND: dependants first; RESUME: dependencies first)
    over `names`, ordered by `template_deps` (name -> names it requires; acyclic, as a
    stored template's are). A name the template lacks gets a node with no edges."""
    if phase not in _WALKS:
        raise ValueError(f"{phase!r} is not a walk; use one of {', '.join(_WALKS)}.")
    wanted = set(names)
    edges: list[tuple[NodeKey, NodeKey]] = []
    for name in sorted(wanted):
        for required in sorted(_required_among(name, wanted, template_deps)):
            user, used = NodeKey(phase, name), NodeKey(phase, required)
            edges.append((user, used) if phase == Phase.SUSPEND else (used, user))
    return TraversalGraph((NodeKey(phase, name) for name in wanted), edges)


def _required_among(
    name: str, wanted: set[str], template_deps: Mapping[str, frozenset[str]]
) -> set[str]:
    """The names of `wanted` that `name` requires, directly or through names outside it."""
    found: set[str] = set()
    seen: set[str] = set()
    todo = list(template_deps.get(name, ()))
    while todo:
        required = todo.pop()
        if required in seen:
            continue
        seen.add(required)
        if required in wanted:
            found.add(required)
        else:
            todo.extend(template_deps.get(required, ()))
    return found
