"""Beats for a fleet: any number of `celery beat` processes, each periodic job run once per slot.

The beats compete for one lease in the SyncPoint Redis; the one holding it sends the jobs,
stamped with the lease's fencing epoch and the job's slot (slots.py: the interval's
clock-aligned windows). A worker lets a job run only if its epoch is the lease's and its slot
has not run yet (lease.py's JobGate), so a beat that lost the lease, or two that both think
they lead, never run a slot twice. LeasedScheduler (scheduler.py) is set as `beat_scheduler`
in celeryconfig.py
(`conv_tasks.beat:LeasedScheduler`).

This folder decides when jobs are sent and whether one may run; it never runs one (the
tasks in conv_tasks.tasks.beat do), and it never touches PostgreSQL.
"""

from conv_tasks.beat.fencing import Stamp, Verdict, read_stamp, refusal
from conv_tasks.beat.lease import BeatKeys, BeatLease, JobGate
from conv_tasks.beat.scheduler import LeasedScheduler
from conv_tasks.beat.slots import Job, LeaseTerms, due, keep_ms, slot_of

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.errors",
    "conv_tasks.faults",
    "conv_tasks.settings",
    "conv_tasks.syncpoint",
)
MUST_NOT_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.tasks",
    "psycopg",
    "sqlalchemy",
)

__all__ = [
    "BeatKeys",
    "BeatLease",
    "Job",
    "JobGate",
    "LeaseTerms",
    "LeasedScheduler",
    "Stamp",
    "Verdict",
    "due",
    "keep_ms",
    "read_stamp",
    "refusal",
    "slot_of",
]
