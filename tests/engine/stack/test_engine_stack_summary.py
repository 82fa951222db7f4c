"""The one-line summary of a failed traversal: each resource counted once, by outcome."""

from __future__ import annotations

from conv_tasks.db import TraversalMark
from conv_tasks.engine.stack.summary import (
    Outcome,
    graph_names,
    outcome_counts,
    outcome_of,
    summarise,
    summary_line,
)


def mark(
    name: str, *done: str, last: str | None = "COMPLETE", converged: bool = False
) -> TraversalMark:
    return TraversalMark(name, frozenset(done), last, converged)


GRAPH = {
    "nodes": [
        "update:a",
        "update:b",
        "update:c",
        "update:db",
        "update:web",
        "update:lb",
        "cleanup:old",
    ],
    "edges": [["update:db", "update:web"], ["update:web", "update:lb"]],
}


def test_each_outcome_is_told_by_what_the_traversal_did() -> None:
    assert outcome_of(mark("r", "CREATE")) == Outcome.CREATED
    assert outcome_of(mark("r", "UPDATE")) == Outcome.UPDATED
    assert outcome_of(mark("r", "CREATE", "DELETE")) == Outcome.REPLACED
    assert outcome_of(mark("r", "UPDATE", "DELETE")) == Outcome.REPLACED  # reinstated
    assert outcome_of(mark("r", "DELETE")) == Outcome.DELETED
    assert outcome_of(mark("r", "CHECK")) == Outcome.CHECKED
    assert outcome_of(mark("r", last=None, converged=True)) == Outcome.UNCHANGED
    assert outcome_of(mark("r", last=None)) == Outcome.NOT_STARTED
    assert outcome_of(None) == Outcome.NOT_STARTED
    assert outcome_of(mark("r", last="IN_PROGRESS")) == Outcome.IN_PROGRESS
    # Its last event is a failure, even if an earlier try completed something.
    assert outcome_of(mark("r", "CREATE", last="FAILED")) == Outcome.FAILED
    # A failure handed on names it, without an event of its own.
    assert outcome_of(None, failed=True) == Outcome.FAILED


def test_the_summary_counts_the_graphs_resources_and_quotes_the_failures() -> None:
    marks = [
        mark("a", "CREATE"),
        mark("b", "CREATE"),
        mark("c", "CREATE"),
        mark("db", last="FAILED"),
        mark("web", last=None),  # a version made for it, never acted on
        mark("old", "DELETE"),
    ]
    failures = ["db: the server refused the role"]
    assert summarise(GRAPH, marks, failures) == (
        "3 created, 1 deleted, 1 failed (db: the server refused the role), 2 not started"
    )


def test_every_failure_is_kept_and_each_failed_resource_counts_once() -> None:
    failures = ["db: no disk", "web: no memory"]
    counts = outcome_counts(graph_names(GRAPH), [mark("db", last="FAILED")], failures)
    assert (counts[Outcome.FAILED], counts[Outcome.NOT_STARTED]) == (2, 5)
    assert summary_line(counts, failures) == "2 failed (db: no disk; web: no memory), 5 not started"


def test_a_resource_outside_the_graph_with_events_still_counts() -> None:
    counts = outcome_counts(["a"], [mark("a", "CREATE"), mark("z", "DELETE")], [])
    assert (counts[Outcome.CREATED], counts[Outcome.DELETED]) == (1, 1)
    # A head of the stack the traversal never touched and had no node for does not count.
    counts = outcome_counts(["a"], [mark("a", "CREATE"), mark("q", last=None)], [])
    assert sum(counts.values()) == 1


def test_an_unreadable_graph_names_no_resource() -> None:
    assert graph_names(None) == []
    assert graph_names({"nodes": "nope"}) == []
    assert summarise(None, [], []) == "no resources"
