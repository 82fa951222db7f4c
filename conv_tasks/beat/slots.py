"""When each periodic job is due, and how long the beats' lease lasts: arithmetic, no I/O.

Time is cut, per job, into slots of the job's interval, aligned on the Unix epoch (a 30 s
watchdog has a slot at :00 and :30 of every minute). A slot is named by its start, in whole
milliseconds. Every beat computes the same slots from its clock, so the slot a job was sent
for says which run it is, whichever beat sent it: the worker runs each slot of a job once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# A lease shorter than this would have a beat renew it all the time for nothing.
MIN_LEASE_MS = 100
# How many slots of its job a worker remembers the last run it let through: a message for a
# slot at or before it is refused. Bounded, so that a beat whose clock ran ahead (and sent a
# slot of the future) holds the job back for at most this many intervals.
KEEP_SLOTS = 3


@dataclass(frozen=True)
class Job:
    """A periodic job of the schedule: its entry's name, its task and its interval."""

    name: str
    task: str
    every_ms: int
    # Whether its task takes the lease's stamp (conv_tasks' own beat jobs do; Celery's
    # backend_cleanup does not, and is only sent by the beat that leads).
    fenced: bool = True


def slot_of(now_ms: int, every_ms: int) -> int:
    """The start of the slot `now_ms` falls in."""
    return now_ms - now_ms % every_ms


def due(jobs: Iterable[Job], sent: Mapping[str, int], now_ms: int) -> list[tuple[Job, int]]:
    """The jobs whose current slot this beat has not sent yet, each with that slot.

    A beat that has just become the leader sends every job's current slot at once: the
    worker lets it through only if the former leader did not already run that slot.
    """
    wanted = []
    for job in jobs:
        slot = slot_of(now_ms, job.every_ms)
        if slot > sent.get(job.name, -1):
            wanted.append((job, slot))
    return wanted


def until_next_slot(jobs: Sequence[Job], now_ms: int) -> float:
    """Seconds until the next slot of any job begins (inf without jobs)."""
    if not jobs:
        return float("inf")
    return min(slot_of(now_ms, j.every_ms) + j.every_ms - now_ms for j in jobs) / 1000.0


def keep_ms(every_ms: int) -> int:
    """How long a worker keeps the last slot it ran of a job of this interval."""
    return KEEP_SLOTS * every_ms


@dataclass(frozen=True)
class LeaseTerms:
    """How long a lease lasts, how often its holder renews it, and how long the holder trusts
    it after the call that took or renewed it began.

    The lifetime is half the shortest interval: a beat killed while it leads leaves a lease
    that runs out within half an interval, the other beats try to take it every third of
    its lifetime, and the new leader sends each job's current slot at once; so no job waits
    more than one interval past the kill (the issue allows two). The holder stops sending
    before Redis lets the lease go (trust < lifetime), so two beats do not both send as
    leaders while their clocks run at the same rate; a beat that is paused between its check
    and its send is what the fencing epoch is for.
    """

    ttl_ms: int
    renew_ms: int
    trust_ms: int

    @classmethod
    def for_jobs(cls, jobs: Iterable[Job]) -> LeaseTerms:
        intervals = [job.every_ms for job in jobs]
        shortest = min(intervals) if intervals else 60_000
        ttl = max(shortest // 2, MIN_LEASE_MS)
        return cls(ttl_ms=ttl, renew_ms=max(ttl // 3, 1), trust_ms=ttl * 4 // 5)
