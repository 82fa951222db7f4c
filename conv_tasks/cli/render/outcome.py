"""What a stack operation did, counted from its events, and the line that ends `--wait`.

An operation's events (from its first one: the operation's result carries its id) fall
into phases: the operation itself and, if it failed and rolled back, the rollback. Each
begins with the stack's own `*_IN_PROGRESS` event and ends with its `*_COMPLETE` or
`*_FAILED` one. Within a phase every resource counts once, by what happened to it there:

- failed: its last event in the phase is a failure;
- replaced: one of its versions was created (or reinstated by an update) and another one
  deleted, as a replacement, or a rollback of one, does;
- created, updated, deleted, checked, suspended, resumed: the action it completed.

A resource that only began an action counts nowhere. An operation resumed under a new
traversal (the watchdog's restart) is still one phase. A failed phase is told as the engine
summed it up (conv_tasks.engine.stack.summary: it also counts what never started). Pure:
values in, text out; printing is progress.py's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.statuses import Action, Status, status_of

# The words of the counts, in the order they are printed ("checked" only for a check).
CHANGES = ("created", "updated", "replaced", "deleted")
_DONE = {Action.CREATE: "created", Action.UPDATE: "updated", Action.DELETE: "deleted"}
# Operations that change no definition count only what they did, and the failures.
_WALKED = {Action.CHECK: "checked", Action.SUSPEND: "suspended", Action.RESUME: "resumed"}


@dataclass
class Phase:
    """One phase of an operation: its action, the stack's state and reason at its end (None
    while it has not ended), and what happened to each resource in it."""

    action: str
    state: str | None = None
    reason: str = ""
    completed: dict[str, set[str]] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)

    def resource_event(self, name: str, action: str, status: Status | None) -> None:
        done = self.completed.setdefault(name, set())
        if status == Status.FAILED:
            self.failed.add(name)
        elif status == Status.COMPLETE:
            self.failed.discard(name)  # a retried action that then completed
            done.add(action)

    def counts(self) -> dict[str, int]:
        """{"created", "updated", "replaced", "deleted", "failed"} ("checked", "suspended"
        or "resumed" and "failed" for a check, suspend or resume): how many resources each
        happened to."""
        counted = dict.fromkeys((*CHANGES, "failed"), 0)
        walked = _WALKED.get(Action(self.action)) if self.action in _WALKED else None
        if walked is not None:
            counted = {walked: 0, "failed": 0}
        for name, done in self.completed.items():
            word = "failed" if name in self.failed else _what_happened(done)
            if word in counted:
                counted[word] += 1
        return counted

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "status": self.state, **self.counts()}


def _what_happened(done: set[str]) -> str | None:
    if Action.DELETE in done and done & {Action.CREATE, Action.UPDATE}:
        return "replaced"
    for action, word in _WALKED.items():
        if action in done:
            return word
    for action, word in _DONE.items():
        if action in done:
            return word
    return None


def phases_of(events: Iterable[Mapping[str, Any]], action: str) -> list[Phase]:
    """The phases of an operation started as `action`, from its events in order."""
    phases: list[Phase] = []
    for event in events:
        state, event_action = str(event.get("status") or ""), str(event.get("action") or "")
        ending = status_of(state)
        if event.get("resource_name"):
            if not phases:
                phases.append(Phase(action))
            phases[-1].resource_event(str(event["resource_name"]), event_action, ending)
            continue
        if not phases or phases[-1].state is not None or _begins(phases[-1], event_action):
            phases.append(Phase(event_action or action))
        if ending in (Status.COMPLETE, Status.FAILED):
            phases[-1].state = state
            phases[-1].reason = str(event.get("reason") or "")
    return phases or [Phase(action)]


def _begins(last: Phase, event_action: str) -> bool:
    """Whether a stack event of `event_action` begins a phase while `last` runs: an event of
    another action does (a rollback after a cancel); one of the same action is the same
    operation going on (the watchdog, or the engine after PostgreSQL lost writes, resumed
    it under a new traversal), and counts in the same phase."""
    return bool(event_action) and event_action != last.action


def counts_text(phase: Phase) -> str:
    """'2 created, 0 updated, 0 replaced, 0 deleted, 1 failed' (a check: '3 checked, 0
    failed')."""
    return ", ".join(f"{n} {word}" for word, n in phase.counts().items())


def resources_text(phases: list[Phase]) -> str:
    """'Resources: 2 created, ..., 1 failed; rollback: 0 created, ..., 0 failed.'"""
    parts = [f"Resources: {counts_text(phases[0])}"]
    parts += [f"{phase.action.lower()}: {counts_text(phase)}" for phase in phases[1:]]
    return "; ".join(parts) + "."


def _changes_text(phase: Phase) -> str:
    """'1 created, 1 replaced': the counts of a phase that are not 0."""
    return ", ".join(f"{n} {word}" for word, n in phase.counts().items() if n)


def failure_line(name: str, final: Mapping[str, Any], phases: list[Phase]) -> str:
    """The one line a failed operation ends with: how each phase ended and what it did.

    A failed phase says it as the engine summed it up at its end, in the reason of its
    `*_FAILED` event ('3 created, 1 failed (db: …), 2 not started'); a phase that completed
    (a rollback after the failure) by the counts of its events that are not 0.
    """
    parts: list[str] = []
    for phase in phases:
        if not phase.state:
            continue
        failed = phase.state.endswith(Status.FAILED)
        said = (phase.reason or _changes_text(phase)) if failed else _changes_text(phase)
        parts.append(f"{phase.state}: {said}" if said else phase.state)
    ended = [phase.state for phase in phases if phase.state]
    if not ended or ended[-1] != final["status"]:
        reason = str(final.get("status_reason") or "")
        parts.append(f"{final['status']}: {reason}" if reason else str(final["status"]))
    return f"stack {name}: {'; then '.join(parts)}"
