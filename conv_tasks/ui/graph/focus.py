"""A large graph trimmed to what needs a reader: above the focus limit, only failed and
in-progress nodes and their direct neighbours are drawn, with a note saying so.

The drawn graph never exceeds the limit: when the failed and in-progress nodes and their
neighbours are more than that, the failed ones come first, then the in-progress ones (each
in traversal order), then as many of their neighbours as still fit. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from conv_tasks.ui.graph.drawing import Drawing, DrawnEdge
from conv_tasks.ui.graph.families import Family, family_of


@dataclass(frozen=True)
class Focus:
    drawing: Drawing  # what is drawn
    total: int  # the nodes the untrimmed drawing has
    trimmed: bool
    note: str  # "" or the sentence saying what was left out


def focus(drawing: Drawing, limit: int) -> Focus:
    total = len(drawing.nodes)
    if total <= limit:
        return Focus(drawing, total, False, "")
    families = [family_of(n.status) for n in drawing.nodes]
    chosen = [i for i, f in enumerate(families) if f is Family.FAILED]
    chosen += [i for i, f in enumerate(families) if f is Family.IN_PROGRESS]
    adjacent: dict[int, list[int]] = {}
    for e in drawing.edges:
        adjacent.setdefault(e.tail, []).append(e.head)
        adjacent.setdefault(e.head, []).append(e.tail)
    keep = set(chosen[:limit])
    wanted = set(chosen)
    for i in chosen:
        wanted.update(adjacent.get(i, ()))
    for i in chosen[:limit]:
        for j in adjacent.get(i, ()):
            if len(keep) >= limit:
                break
            keep.add(j)
    return Focus(_only(drawing, keep), total, True, _note(total, limit, len(chosen), keep, wanted))


def _only(drawing: Drawing, keep: set[int]) -> Drawing:
    order = sorted(keep)
    new = {old: n for n, old in enumerate(order)}
    edges = tuple(
        DrawnEdge(new[e.tail], new[e.head], e.kind)
        for e in drawing.edges
        if e.tail in new and e.head in new
    )
    nodes = tuple(drawing.nodes[i] for i in order)
    return Drawing(stack=drawing.stack, status=drawing.status, nodes=nodes, edges=edges)


def _note(total: int, limit: int, chosen: int, keep: set[int], wanted: set[int]) -> str:
    start = f"The graph has {total:,} nodes, more than {limit:,}"
    left = f"{total - len(keep):,} nodes left out"
    if not chosen:
        return f"{start}, and none is failed or in progress: none is drawn ({left})."
    if len(keep) < len(wanted):
        return (
            f"{start}: only failed and in-progress nodes and their direct neighbours are "
            f"drawn, and of those ({len(wanted):,}, {chosen:,} of them failed or in progress) "
            f"only the first {len(keep):,}, failed ones first ({left})."
        )
    return (
        f"{start}: only its {chosen:,} failed or in-progress nodes and their direct "
        f"neighbours are drawn ({left})."
    )
