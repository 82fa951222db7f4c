"""What a beat stamps on a job it sends, and what a worker makes of a stamp: no I/O.

The stamp is two JSON integers in the job's kwargs: `epoch`, the fencing epoch of the lease
the sending beat held (Redis counts one up each time a beat takes the lease), and `slot`, the
start of the run's slot in Unix milliseconds (conv_tasks.beat.slots). Any service can send a
beat job over the broker; a stamp that is missing or malformed is refused with a sentence,
never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

# Lua (which checks stamps in Redis) counts in doubles: integers above this lose precision.
MAX_STAMP_NUMBER = 2**53 - 1


@dataclass(frozen=True)
class Stamp:
    epoch: int
    slot: int

    def kwargs(self) -> dict[str, int]:
        return {"epoch": self.epoch, "slot": self.slot}

    def due(self) -> str:
        """The slot's start as a UTC time, for a log line."""
        moment = datetime.fromtimestamp(self.slot / 1000, UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _whole(value: object, low: int) -> bool:
    return (
        isinstance(value, int) and not isinstance(value, bool) and low <= value <= MAX_STAMP_NUMBER
    )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_stamp(epoch: object, slot: object) -> Stamp | str:
    """The stamp of a job message, or a sentence saying what is wrong with it."""
    if epoch is None:
        return (
            "it carries no beat lease epoch: beat jobs are sent by the beat that holds the "
            "lease, with its epoch and slot"
        )
    if not _whole(epoch, 1):
        return f"its beat lease epoch must be a whole number from 1, got {_shown(epoch)}"
    if not _whole(slot, 0):
        return f"its slot must be a whole number of milliseconds from 0, got {_shown(slot)}"
    assert isinstance(epoch, int) and isinstance(slot, int)
    return Stamp(epoch=epoch, slot=slot)


class Verdict(StrEnum):
    """What the worker's gate says to a stamped job."""

    RUN = "run"
    # Sent under an epoch older than the lease's: by a beat that has lost the lease since.
    STALE = "stale"
    # An epoch no beat has held yet (or Redis lost its count): not from a beat of this
    # deployment as it stands.
    UNKNOWN = "unknown"
    # This slot, or a later one, of the job has run already.
    DONE = "done"


def refusal(stamp: Stamp, verdict: Verdict, seen: int) -> str:
    """The sentence a worker logs when its gate refuses a stamped job; `seen` is the lease's
    epoch (STALE, UNKNOWN) or the last slot that ran (DONE)."""
    if verdict is Verdict.STALE:
        return (
            f"sent under beat lease epoch {stamp.epoch}, and the lease is at epoch {seen}: "
            "its beat lost the lease"
        )
    if verdict is Verdict.UNKNOWN:
        return f"beat lease epoch {stamp.epoch} was never held (the lease is at epoch {seen})"
    if verdict is Verdict.DONE:
        return f"the slot due {stamp.due()} has run already (the last run was slot {seen})"
    raise ValueError(f"{verdict} is no refusal")
