"""The one line a failed operation ends with: '3 created, 1 failed (db: …), 2 not started'.

Each resource of the traversal counts once, by what the traversal did to it (read once, at
the operation's end, from the event and resource tables: TraversalMark):

- failed: its last event in the traversal is a failure, or a failure names it;
- replaced: one version was created (or reinstated) and another one deleted;
- created, updated, deleted, checked, suspended, resumed: the action the traversal completed on it;
- unchanged: nothing to do (its head stands converged to the traversal's template);
- in progress: an action still under way (a timeout or a cancel ends the operation first);
- not started: nothing happened to it (a predecessor failed, or the operation stopped).

The failures themselves (`name: reason`, as the nodes handed them on) follow the failed
count in parentheses, so no detail is lost. Pure: values in, text out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

from conv_tasks.db import TraversalMark
from conv_tasks.errors import InvalidInput
from conv_tasks.graph import TraversalGraph
from conv_tasks.statuses import Action, Status


class Outcome(StrEnum):
    """What a traversal did to one resource, in the order the summary names them."""

    CREATED = "created"
    UPDATED = "updated"
    REPLACED = "replaced"
    DELETED = "deleted"
    CHECKED = "checked"
    SUSPENDED = "suspended"
    RESUMED = "resumed"
    UNCHANGED = "unchanged"
    FAILED = "failed"
    IN_PROGRESS = "in progress"
    NOT_STARTED = "not started"


_DONE = ((Action.CREATE, Outcome.CREATED), (Action.UPDATE, Outcome.UPDATED))
_WALKED = (
    (Action.CHECK, Outcome.CHECKED),
    (Action.SUSPEND, Outcome.SUSPENDED),
    (Action.RESUME, Outcome.RESUMED),
)


def outcome_of(mark: TraversalMark | None, *, failed: bool = False) -> Outcome:
    """What the traversal did to a resource; `failed`: a failure the nodes handed on names it."""
    if mark is None:
        return Outcome.FAILED if failed else Outcome.NOT_STARTED
    if failed or mark.last_status == Status.FAILED:
        return Outcome.FAILED
    if mark.last_status == Status.IN_PROGRESS:
        return Outcome.IN_PROGRESS
    done = mark.done
    if Action.DELETE in done and done & {Action.CREATE, Action.UPDATE}:
        return Outcome.REPLACED
    for action, outcome in _DONE:
        if action in done:
            return outcome
    if Action.DELETE in done:
        return Outcome.DELETED
    for action, outcome in _WALKED:
        if action in done:
            return outcome
    return Outcome.UNCHANGED if mark.converged else Outcome.NOT_STARTED


def graph_names(graph: Mapping[str, object] | None) -> list[str]:
    """The resources a stored traversal graph has nodes for, in its order; [] if unreadable."""
    if graph is None:
        return []
    try:
        nodes = TraversalGraph.from_json(graph).nodes
    except InvalidInput:
        return []
    return list(dict.fromkeys(node.name for node in nodes))


def _names_failed(failures: Sequence[str], names: Iterable[str]) -> set[str]:
    return {name for name in names if any(f.startswith(f"{name}: ") for f in failures)}


def outcome_counts(
    names: Sequence[str], marks: Iterable[TraversalMark], failures: Sequence[str]
) -> dict[Outcome, int]:
    """How many of the traversal's resources (`names`, those of its graph; a resource the
    events name beside them counts too) each outcome happened to."""
    by_name = {mark.name: mark for mark in marks}
    counted = dict.fromkeys(names)
    for mark in by_name.values():
        if mark.last_status is not None:
            counted.setdefault(mark.name)
    failed = _names_failed(failures, counted)
    counts = dict.fromkeys(Outcome, 0)
    for name in counted:
        counts[outcome_of(by_name.get(name), failed=name in failed)] += 1
    return counts


def summary_line(counts: Mapping[Outcome, int], failures: Sequence[str]) -> str:
    """'3 created, 1 failed (db: …), 2 not started': the outcomes that happened, and the
    failures after their count (each once, as the nodes handed them on)."""
    parts: list[str] = []
    for outcome in Outcome:
        n = counts.get(outcome, 0)
        if outcome == Outcome.FAILED and failures:
            parts.append(f"{n or len(failures)} failed ({'; '.join(failures)})")
        elif n:
            parts.append(f"{n} {outcome}")
    return ", ".join(parts) or "no resources"


def summarise(
    graph: Mapping[str, object] | None,
    marks: Iterable[TraversalMark],
    failures: Sequence[str],
) -> str:
    """The summary of a traversal whose stored graph is `graph`."""
    return summary_line(outcome_counts(graph_names(graph), marks, failures), failures)
