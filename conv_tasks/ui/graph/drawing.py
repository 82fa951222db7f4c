"""What is drawn: the nodes and edges of a stack's graph once clean-up nodes are left out
(unless asked for) and nested stacks are collapsed into one node (unless asked to open).

A node is a graph node of the stack's traversal, or, inside a nested stack that is open, one
of that stack's resources. Its path names it: ("web",) at the top, ("group", "0") for the
member 0 of the open group "group". Pure: no Graphviz here, nothing about the SVG.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from conv_tasks.ui.graph.inputs import CLEANUP, ResourceInfo, StackGraph
from conv_tasks.ui.graph.nesting import NestedStacks, counts_text

# A nested stack is opened by its path, its names joined with this.
PATH_SEPARATOR = "/"


class Nesting(StrEnum):
    """Whether a node owns a nested stack with resources, and whether that stack is open."""

    NONE = "none"
    COLLAPSED = "collapsed"
    EXPANDED = "expanded"


class EdgeKind(StrEnum):
    DEPENDS = "depends"  # the tail runs before the head
    MEMBER = "member"  # the head is in the nested stack the tail owns


# DrawnNode and DrawnEdge are NamedTuples, built by the ten thousand (see inputs.GraphNode).
class DrawnNode(NamedTuple):
    path: tuple[str, ...]
    phase: str
    status: str
    reason: str = ""
    nesting: Nesting = Nesting.NONE
    counts: str = ""  # for a nested stack: "12: 10 complete, 2 failed"

    @property
    def name(self) -> str:
        return self.path[-1]

    @property
    def path_text(self) -> str:
        return PATH_SEPARATOR.join(self.path)

    @property
    def cluster(self) -> tuple[str, ...]:
        """The path of the open nested stack this node is drawn in; () at the top."""
        return self.path[:-1]


class DrawnEdge(NamedTuple):
    tail: int  # an index into Drawing.nodes
    head: int
    kind: EdgeKind = EdgeKind.DEPENDS


@dataclass(frozen=True)
class Drawing:
    stack: str
    status: str
    nodes: tuple[DrawnNode, ...]
    edges: tuple[DrawnEdge, ...]


def shown_phases(graph: StackGraph, show_cleanup: bool) -> frozenset[str]:
    """The phases drawn: all of them with show_cleanup; otherwise all but clean-up, unless
    clean-up is all the traversal has (a stack delete), which is then drawn."""
    phases = frozenset(n.phase for n in graph.nodes)
    if show_cleanup or phases <= {CLEANUP}:
        return phases
    return phases - {CLEANUP}


def plan_drawing(
    graph: StackGraph, nested: NestedStacks, *, show_cleanup: bool, expand: Iterable[str]
) -> Drawing:
    """The nodes and edges to draw. `expand` holds the paths (names joined by "/") of the
    nested stacks to open; the rest of them are collapsed into one node each."""
    planner = _Planner(nested, frozenset(expand))
    phases = shown_phases(graph, show_cleanup)
    by_id: dict[str, int] = {}
    for gn in graph.nodes:
        if gn.phase not in phases or gn.id in by_id:
            continue
        resource = nested.top.get(gn.name)
        # A clean-up node removes old versions: the nested stack belongs to the update node.
        owner = resource if gn.phase != CLEANUP else None
        by_id[gn.id] = planner.add((gn.name,), gn.phase, gn.status, resource, owner)
    for before, after in graph.edges:
        if before in by_id and after in by_id:
            planner.edges.append(DrawnEdge(by_id[before], by_id[after]))
    return Drawing(
        stack=graph.stack,
        status=graph.status,
        nodes=tuple(planner.nodes),
        edges=tuple(planner.edges),
    )


class _Planner:
    def __init__(self, nested: NestedStacks, expand: frozenset[str]) -> None:
        self.nested = nested
        self.expand = expand
        self.nodes: list[DrawnNode] = []
        self.edges: list[DrawnEdge] = []
        self.opened: set[tuple[str, ...]] = set()

    def add(
        self,
        path: tuple[str, ...],
        phase: str,
        status: str,
        resource: ResourceInfo | None,
        owner: ResourceInfo | None,
    ) -> int:
        members = self.nested.members(owner)
        text = PATH_SEPARATOR.join(path)
        opens = bool(members) and text in self.expand and path not in self.opened
        nesting = Nesting.NONE
        if members:
            nesting = Nesting.EXPANDED if opens else Nesting.COLLAPSED
        index = len(self.nodes)
        self.nodes.append(
            DrawnNode(
                path=path,
                phase=phase,
                status=status,
                reason=resource.reason if resource is not None else "",
                nesting=nesting,
                counts=counts_text(members) if members else "",
            )
        )
        if opens:
            self.opened.add(path)
            self._open(index, path, members)
        return index

    def _open(self, owner: int, path: tuple[str, ...], members: tuple[ResourceInfo, ...]) -> None:
        unique: dict[str, ResourceInfo] = {}
        for m in members:
            unique.setdefault(m.name, m)
        by_name = {
            name: self.add((*path, name), "update", m.status, m, m) for name, m in unique.items()
        }
        for m in unique.values():
            inside = [r for r in m.requires if r in by_name and r != m.name]
            for required in inside:
                self.edges.append(DrawnEdge(by_name[required], by_name[m.name]))
            if not inside:
                self.edges.append(DrawnEdge(owner, by_name[m.name], EdgeKind.MEMBER))
