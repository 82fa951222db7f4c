"""Graph algorithms over nodes numbered 0..n-1: Kahn's topological sort and strongly connected
components.

Nodes are plain ints and adjacency is a list indexed by node, so that no user-level __hash__ or
__eq__ runs in the inner loops. Everything is iterative and linear in nodes + edges, because
stacks of 10,000+ resources in a single chain must neither hit Python's recursion limit nor
take quadratic time. These functions never validate their input: callers pass successor
collections without duplicates, naming only nodes in range.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Iterator, Sequence

Adjacency = Sequence[Collection[int]]


def kahn_order(successors: Adjacency) -> tuple[list[int], list[int]]:
    """(sorted, left_over): a topological order of as many nodes as possible, and the nodes
    that could not be sorted (on a cycle or after one), in ascending order.

    Ties are broken by node number and by the order of each successor collection, so the
    result is deterministic when those are.
    """
    count = len(successors)
    indegree = [0] * count
    for after in successors:
        for succ in after:
            indegree[succ] += 1
    ready = deque(node for node in range(count) if indegree[node] == 0)
    done: list[int] = []
    while ready:
        node = ready.popleft()
        done.append(node)
        for succ in successors[node]:
            indegree[succ] -= 1
            if indegree[succ] == 0:
                ready.append(succ)
    if len(done) == count:
        return done, []
    return done, [node for node in range(count) if indegree[node] > 0]


def strongly_connected(starts: Iterable[int], successors: Adjacency) -> list[int]:
    """The strongly connected component of every node reachable from `starts`, as a list
    indexed by node (-1 for nodes not reached). Tarjan's algorithm with an explicit stack."""
    count = len(successors)
    index = [-1] * count
    low = [0] * count
    component = [-1] * count
    on_stack = [False] * count
    stack: list[int] = []
    counter = 0
    components = 0

    def enter(node: int) -> tuple[int, Iterator[int]]:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack[node] = True
        return node, iter(successors[node])

    for start in starts:
        if index[start] >= 0:
            continue
        work = [enter(start)]
        while work:
            node, pending = work[-1]
            descended = False
            for succ in pending:
                if index[succ] < 0:
                    work.append(enter(succ))
                    descended = True
                    break
                if on_stack[succ]:
                    low[node] = min(low[node], index[succ])
            if descended:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = components
                    if member == node:
                        break
                components += 1
    return component
