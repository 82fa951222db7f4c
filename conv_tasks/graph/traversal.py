"""The traversal graph: which graph nodes must finish before which others.

A TraversalGraph is an immutable, always-acyclic value. It is built once per stack operation,
stored and sent to workers as JSON, and read by node tasks to find their predecessors (whose
SyncPoint they wait on) and successors (whom they trigger). It must never decide what the
edges are (that is the planner's job) and never touches storage.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from conv_tasks.errors import InvalidInput, Problem

from .cycles import find_cycle
from .nodes import NodeKey, sort_key
from .toposort import kahn_order

Edge = tuple[NodeKey, NodeKey]

_WHAT = "traversal graph"


class TraversalGraph:
    """Nodes and 'before -> after' edges, with a topological order computed at construction.

    Raises InvalidInput if an edge names a node that is not in `nodes`, joins a node to
    itself, or if the edges form a cycle. Duplicate edges collapse.
    """

    # Internally node i is self._keys[i], with the keys sorted, so that sorting ints sorts
    # nodes and the inner loops never call NodeKey.__hash__.
    __slots__ = ("_index", "_keys", "_nodes", "_order", "_predecessors", "_successors")

    _keys: tuple[NodeKey, ...]
    _index: dict[NodeKey, int]
    _nodes: frozenset[NodeKey]
    _successors: tuple[tuple[int, ...], ...]
    _predecessors: tuple[tuple[int, ...], ...]
    _order: tuple[int, ...]

    def __init__(self, nodes: Iterable[NodeKey], edges: Iterable[Edge] = ()) -> None:
        node_set = frozenset(nodes)
        for node in node_set:
            if not isinstance(node, NodeKey):
                raise InvalidInput([Problem("nodes", f"{node!r} is not a NodeKey.")], what=_WHAT)
        keys = sorted(node_set, key=sort_key)
        index = {key: i for i, key in enumerate(keys)}
        after: list[set[int]] = [set() for _ in keys]
        problems: list[Problem] = []
        for first, then in edges:
            i, j = index.get(first), index.get(then)
            if i is None or j is None:
                missing = first if i is None else then
                problems.append(
                    Problem(
                        "edges",
                        f"the edge {first} -> {then} names {missing}, "
                        "which is not a node of the graph.",
                    )
                )
            elif i == j:
                problems.append(Problem("edges", f"the edge {first} -> {then} is a self-loop."))
            else:
                after[i].add(j)
        if problems:
            raise InvalidInput(problems, what=_WHAT)
        self._setup(tuple(keys), index, after)

    @classmethod
    def _from_adjacency(
        cls, keys: Sequence[NodeKey], successors: Sequence[Iterable[int]]
    ) -> TraversalGraph:
        """The graph whose node i is keys[i] (distinct) with edges i -> successors[i].

        For the planner and from_json, which already hold trusted, numbered nodes; the
        edges are still checked for cycles.
        """
        sort_keys = [sort_key(key) for key in keys]
        old_of = sorted(range(len(keys)), key=sort_keys.__getitem__)
        new_of = [0] * len(keys)
        for new, old in enumerate(old_of):
            new_of[old] = new
        sorted_keys = tuple(keys[old] for old in old_of)
        after = [{new_of[j] for j in successors[old]} for old in old_of]
        graph = cls.__new__(cls)
        graph._setup(sorted_keys, {key: i for i, key in enumerate(sorted_keys)}, after)
        return graph

    def _setup(
        self, keys: tuple[NodeKey, ...], index: dict[NodeKey, int], after: list[set[int]]
    ) -> None:
        successors = tuple(tuple(sorted(nexts)) for nexts in after)
        order, left_over = kahn_order(successors)
        if left_over:
            raise InvalidInput([_cycle_problem(keys, left_over, successors)], what=_WHAT)
        predecessors: list[list[int]] = [[] for _ in keys]
        for i, nexts in enumerate(successors):
            for j in nexts:
                predecessors[j].append(i)
        set_slot = object.__setattr__
        set_slot(self, "_keys", keys)
        set_slot(self, "_index", index)
        set_slot(self, "_nodes", frozenset(keys))
        set_slot(self, "_successors", successors)
        set_slot(self, "_predecessors", tuple(map(tuple, predecessors)))
        set_slot(self, "_order", tuple(order))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"TraversalGraph is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"TraversalGraph is immutable; cannot delete {name!r}")

    @property
    def nodes(self) -> frozenset[NodeKey]:
        return self._nodes

    def predecessors(self, node: NodeKey) -> frozenset[NodeKey]:
        """The nodes that must finish before `node`. KeyError if `node` is not in the graph."""
        keys = self._keys
        return frozenset(keys[i] for i in self._predecessors[self._index[node]])

    def successors(self, node: NodeKey) -> tuple[NodeKey, ...]:
        """The nodes that wait on `node`, sorted. KeyError if `node` is not in the graph."""
        keys = self._keys
        return tuple(keys[j] for j in self._successors[self._index[node]])

    def roots(self) -> tuple[NodeKey, ...]:
        """Nodes with no predecessors, sorted: a traversal starts by enqueuing these."""
        return tuple(
            key for key, before in zip(self._keys, self._predecessors, strict=True) if not before
        )

    def leaves(self) -> tuple[NodeKey, ...]:
        """Nodes with no successors, sorted: the stack's own SyncPoint waits for these."""
        return tuple(
            key for key, after in zip(self._keys, self._successors, strict=True) if not after
        )

    def order(self) -> list[NodeKey]:
        """A topological order (deterministic for a given graph)."""
        keys = self._keys
        return [keys[i] for i in self._order]

    def edges(self) -> tuple[Edge, ...]:
        """Every edge as (before, after), sorted."""
        keys = self._keys
        return tuple((keys[i], keys[j]) for i, after in enumerate(self._successors) for j in after)

    def to_json(self) -> dict[str, Any]:
        """{"nodes": [...], "edges": [[before, after], ...]}, nodes as 'phase:name', sorted."""
        texts = [str(key) for key in self._keys]
        return {
            "nodes": texts,
            "edges": [
                [texts[i], texts[j]] for i, after in enumerate(self._successors) for j in after
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TraversalGraph:
        """The graph that to_json() described. InvalidInput listing every problem otherwise."""
        if not isinstance(data, Mapping):
            raise InvalidInput(
                [Problem("", "a traversal graph must be an object with 'nodes' and 'edges'.")],
                what=_WHAT,
            )
        problems = [
            Problem(str(key), "is not a field of a traversal graph; expected 'nodes' and 'edges'.")
            for key in data
            if key not in ("nodes", "edges")
        ]
        numbered = _parse_nodes(data.get("nodes"), problems)
        successors = _parse_edges(data.get("edges", []), numbered, problems)
        if problems:
            raise InvalidInput(problems, what=_WHAT)
        return cls._from_adjacency(list(numbered.values()), successors)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, node: object) -> bool:
        return node in self._index

    def __iter__(self) -> Iterator[NodeKey]:
        """The nodes in topological order."""
        return iter(self.order())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TraversalGraph):
            return NotImplemented
        return self._keys == other._keys and self._successors == other._successors

    def __hash__(self) -> int:
        return hash(self._nodes)

    def __repr__(self) -> str:
        edge_count = sum(map(len, self._successors))
        return f"<TraversalGraph {len(self._keys)} nodes, {edge_count} edges>"


def _parse_node(text: object, path: str, problems: list[Problem]) -> NodeKey | None:
    if not isinstance(text, str):
        problems.append(Problem(path, f"{text!r} must be a string such as 'update:web'."))
        return None
    try:
        return NodeKey.parse(text)
    except InvalidInput as error:
        problems.extend(Problem(path, problem.message) for problem in error.problems)
        return None


def _parse_nodes(raw: object, problems: list[Problem]) -> dict[str, NodeKey]:
    """The listed nodes by their text, in listed order (so a node's position is its number)."""
    if not isinstance(raw, list | tuple):
        problems.append(Problem("nodes", "must be a list of nodes such as 'update:web'."))
        return {}
    nodes: dict[str, NodeKey] = {}
    for i, text in enumerate(raw):
        node = _parse_node(text, f"nodes[{i}]", problems)
        if node is None:
            continue
        if str(node) in nodes:
            problems.append(Problem(f"nodes[{i}]", f"the node {node} is listed twice."))
            continue
        nodes[str(node)] = node
    return nodes


def _parse_edges(raw: object, nodes: dict[str, NodeKey], problems: list[Problem]) -> list[set[int]]:
    """Each listed node's successors, by node number."""
    number = {text: i for i, text in enumerate(nodes)}
    successors: list[set[int]] = [set() for _ in nodes]
    if not isinstance(raw, list | tuple):
        problems.append(Problem("edges", "must be a list of [before, after] pairs."))
        return successors
    for i, pair in enumerate(raw):
        path = f"edges[{i}]"
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            problems.append(Problem(path, f"{pair!r} must be a [before, after] pair of nodes."))
            continue
        ends: list[int | None] = []
        for j, text in enumerate(pair):
            end = number.get(text) if isinstance(text, str) else None
            # Only an unknown end is parsed again, to say whether it is malformed or unlisted.
            if end is None and _parse_node(text, f"{path}[{j}]", problems) is not None:
                problems.append(Problem(f"{path}[{j}]", f"{text} is not listed in 'nodes'."))
            ends.append(end)
        first, then = ends
        if first is None or then is None:
            continue
        if first == then:
            problems.append(Problem(path, f"the edge {pair[0]} -> {pair[1]} is a self-loop."))
            continue
        successors[first].add(then)
    return successors


def _cycle_problem(
    keys: Sequence[NodeKey], left_over: Sequence[int], successors: Sequence[Sequence[int]]
) -> Problem:
    # Only the nodes Kahn's algorithm could not sort can lie on a cycle; search just those.
    stuck = set(left_over)
    deps = {str(keys[i]): [str(keys[j]) for j in successors[i] if j in stuck] for i in left_over}
    cycle = find_cycle(deps) or [str(keys[i]) for i in left_over]
    path = " -> ".join([*cycle, cycle[0]])
    return Problem("edges", f"the edges form a cycle: {path}.")
