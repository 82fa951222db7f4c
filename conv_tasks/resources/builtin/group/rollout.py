"""Where a group's create or update stands between two polls, and what to do next.

A Rollout is what the plugin keeps in its data (to_data/from_data, JSON only):
the batches still to apply, as the names each changes and removes (the child
template of a batch is rebuilt with batches.replay), how many were started,
and when the last one finished, for the pause before the next. next_move says
what to do when the child stack is idle. Pure: the plugin polls the child
and acts; this module only decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from conv_tasks.resources.builtin.group.batches import BatchPlan


class Move(StrEnum):
    """What the plugin does next with the child stack."""

    APPLY = "apply"  # update the child to the next batch's template
    WAIT = "wait"  # the pause between two batches is not over
    DONE = "done"  # every batch is applied and finished


@dataclass(frozen=True)
class NextMove:
    move: Move
    batch: int | None = None  # the batch to apply (Move.APPLY)
    wait: float = 0.0  # seconds until the pause is over (Move.WAIT)


@dataclass(frozen=True)
class Rollout:
    batches: tuple[Mapping[str, Sequence[str]], ...]
    pause_time: float = 0.0
    started: int = 0
    # When the child finished the last batch started; None while it runs (or before any).
    finished_at: float | None = None

    @classmethod
    def of(cls, plan: BatchPlan) -> Rollout:
        return cls(tuple(b.summary() for b in plan.batches), plan.pause_time)

    def next_move(self, now: float) -> NextMove:
        """What to do now that the child stack is idle (its last batch complete)."""
        if self.started and self.finished_at is None:
            raise ValueError("batch finished but not recorded: call finished(now) first")
        if self.started >= len(self.batches):
            return NextMove(Move.DONE)
        if self.started and self.finished_at is not None:
            left = self.finished_at + self.pause_time - now
            if left > 0:
                return NextMove(Move.WAIT, wait=left)
        return NextMove(Move.APPLY, batch=self.started)

    def applied(self, batch: int) -> Rollout:
        """After the child was given batch's template. Applying the same batch again (a
        retried poll) changes nothing."""
        if batch == self.started - 1:
            return self
        if batch != self.started:
            raise ValueError(f"batch {batch} applied out of order; batch {self.started} is next")
        return replace(self, started=self.started + 1, finished_at=None)

    def finished(self, now: float) -> Rollout:
        """The child completed the batch started last; the first time counts for the pause."""
        if self.finished_at is not None or not self.started:
            return self
        return replace(self, finished_at=now)

    def to_data(self) -> dict[str, Any]:
        return {
            "batches": [
                {"changed": list(b["changed"]), "removed": list(b["removed"])} for b in self.batches
            ],
            "pause_time": self.pause_time,
            "started": self.started,
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Rollout:
        """The rollout to_data wrote; ValueError if data is not one (a bug, never user input)."""
        try:
            batches = tuple(
                {"changed": _names(b["changed"]), "removed": _names(b["removed"])}
                for b in data["batches"]
            )
            pause = float(data["pause_time"])
            started = int(data["started"])
            finished = data["finished_at"]
            finished_at = None if finished is None else float(finished)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a group rollout: {exc!r}") from None
        if not 0 <= started <= len(batches) or pause < 0:
            raise ValueError(f"not a group rollout: started {started} of {len(batches)}")
        return cls(batches, pause, started, finished_at)


def _names(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise TypeError("member names must be a list of strings")
    return list(value)
