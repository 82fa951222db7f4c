"""LeasedScheduler: a celery beat scheduler of which any number may run, one sending at a time.

Every beat ticks; each tick takes or renews the one lease in the SyncPoint Redis (or finds
another beat holding it). Only the beat that holds the lease, and trusts it still (its
renewal began less than the lease's trust time ago), sends the jobs due, each stamped with
the lease's fencing epoch and the job's slot (conv_tasks.beat.fencing). The worker runs a job
only if that epoch is still the lease's and the slot has not run (conv_tasks.tasks.beat): so
a beat that lost the lease while it was sending, or two beats that both believed they led,
still run each slot of each job once.

Why not celery-redbeat (maintained, 2.4.2 in 2026): it too lets one beat of many send, under
a Redis lock, but without fencing (a beat paused past its lock still sends when it resumes,
and workers cannot tell), with a Redis client of its own (not conv_tasks' factory, so not its
Sentinel support), a lock of 25 minutes unless tuned, and the schedule itself kept in Redis.
Here the schedule stays in celeryconfig.py and nothing but the lease lives in Redis.

This module must never run a job, nor decide whether one may run: workers do.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from datetime import timedelta
from typing import Any

import redis
from celery.beat import Scheduler
from celery.schedules import schedule as interval_schedule

from conv_tasks.beat.fencing import Stamp
from conv_tasks.beat.lease import BeatLease
from conv_tasks.beat.slots import Job, LeaseTerms, due, until_next_slot
from conv_tasks.errors import ConvTasksError
from conv_tasks.faults import describe
from conv_tasks.settings import get_settings
from conv_tasks.syncpoint import get_redis

log = logging.getLogger(__name__)

# Celery's own result clean-up, which celery adds when the result backend cannot expire
# results itself (crontab 04:00): here once a day, sent unstamped by the leader only.
BACKEND_CLEANUP = "celery.backend_cleanup"
# After a failed send, try again this soon rather than at the next slot.
RETRY_SEND_S = 1.0
# Any Redis error, not only a lost connection: a replica that answers READONLY while
# Sentinel fails over must make the beat stand by, not stop it.
LEASE_FAULTS = (redis.exceptions.RedisError,)


class ScheduleNotSupported(ConvTasksError):
    """A beat_schedule entry LeasedScheduler cannot run."""


def _job(name: str, entry: Any) -> Job:
    plan = entry.schedule
    if type(plan) is not interval_schedule:
        raise ScheduleNotSupported(
            f"beat_schedule entry {name!r}: LeasedScheduler runs interval schedules only (a "
            f"number of seconds or a timedelta), got {plan!r}"
        )
    every_ms = round(plan.run_every.total_seconds() * 1000)
    if every_ms < 1:
        raise ScheduleNotSupported(f"beat_schedule entry {name!r}: its interval is under 1 ms")
    return Job(name=name, task=entry.task, every_ms=every_ms, fenced=entry.task != BACKEND_CLEANUP)


def holder_id() -> str:
    """This beat among all: host, process and a nonce (a restarted process is another
    holder, even with the same process id)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LeasedScheduler(Scheduler):
    """Celery beat's scheduler for a fleet: see the module's docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._jobs: list[Job] = []
        self._sent: dict[str, int] = {}
        self._lease: BeatLease | None = None
        self._terms = LeaseTerms.for_jobs(())
        self._epoch: int | None = None
        self._trusted_until = 0.0
        self._next_hold = 0.0
        self._state = ""
        super().__init__(*args, **kwargs)

    # -- set-up ---------------------------------------------------------------------------

    def install_default_entries(self, data: Any) -> None:
        expiring = self.app.conf.result_expires and not self.app.backend.supports_autoexpire
        if expiring and BACKEND_CLEANUP not in data:
            entry = {
                "task": BACKEND_CLEANUP,
                "schedule": timedelta(days=1),
                "options": {"expires": 12 * 3600},
            }
            self.update_from_dict({BACKEND_CLEANUP: entry})

    def setup_schedule(self) -> None:
        # The schedule first, then Celery's defaults (as its PersistentScheduler does: the base
        # Scheduler's order drops them again, since they are not in beat_schedule).
        self.merge_inplace(self.app.conf.beat_schedule)
        self.install_default_entries(self.schedule)
        self._jobs = [_job(name, entry) for name, entry in sorted(self.schedule.items())]
        self._terms = LeaseTerms.for_jobs(self._jobs)
        settings = get_settings()
        self._lease = BeatLease(
            get_redis(settings.redis_url),
            prefix=settings.redis_prefix,
            holder=holder_id(),
            ttl_ms=self._terms.ttl_ms,
        )
        log.info(
            "beat: %d jobs; lease %s for %.3f s, renewed every %.3f s, holder %s",
            len(self._jobs),
            f"{settings.redis_prefix}:beat:{{lease}}",
            self._terms.ttl_ms / 1000,
            self._terms.renew_ms / 1000,
            self._lease.holder,
        )

    # -- the loop -------------------------------------------------------------------------

    def _say(self, state: str, line: str, *args: Any, level: int = logging.INFO) -> None:
        """Log a change of this beat's state once, not at every tick."""
        if state != self._state:
            self._state = state
            log.log(level, line, *args)

    def _hold(self, started: float) -> None:
        assert self._lease is not None
        self._next_hold = started + self._terms.renew_ms / 1000
        try:
            epoch = self._lease.hold()
        except LEASE_FAULTS as exc:
            self._epoch = None
            self._say(
                "unreachable",
                "beat: the lease in Redis cannot be reached (%s); sending nothing until it can",
                describe(exc),
                level=logging.WARNING,
            )
            return
        if epoch is None:
            self._epoch = None
            self._say("standby", "beat: another beat holds the lease; this one stands by")
            return
        if epoch != self._epoch:
            self._sent.clear()  # a new term: send every job's current slot (workers dedupe)
        self._epoch = epoch
        self._trusted_until = started + self._terms.trust_ms / 1000
        self._say(f"lead {epoch}", "beat: this beat leads, under lease epoch %d", epoch)

    def _send(self, job: Job, stamp: Stamp) -> bool:
        entry = self.schedule[job.name]
        kwargs = {**(entry.kwargs or {}), **(stamp.kwargs() if job.fenced else {})}
        options = dict(entry.options)
        options["headers"] = {**options.get("headers", {}), "celery_beat_task": True}
        log.info("beat: sending %s, slot due %s (epoch %d)", job.task, stamp.due(), stamp.epoch)
        try:
            self.send_task(
                job.task, tuple(entry.args or ()), kwargs, producer=self.producer, **options
            )
        except Exception as exc:  # the broker: tried again shortly, as long as this beat leads
            log.warning("beat: could not send %s: %s", job.task, describe(exc))
            return False
        return True

    def tick(self, *_args: Any, **_kwargs: Any) -> float:
        started = time.monotonic()
        if started >= self._next_hold:
            self._hold(started)
        now_ms = int(time.time() * 1000)
        failed = False
        if self._epoch is not None and time.monotonic() < self._trusted_until:
            for job, slot in due(self._jobs, self._sent, now_ms):
                # Checked again before each send: a send that hangs on the broker uses up
                # the trust, and the jobs after it are not sent.
                if time.monotonic() >= self._trusted_until:
                    break
                if self._send(job, Stamp(self._epoch, slot)):
                    self._sent[job.name] = slot
                else:
                    failed = True
        elif self._epoch is not None:
            self._say("untrusted", "beat: the lease was not renewed in time; sending nothing")
        wait = min(
            until_next_slot(self._jobs, int(time.time() * 1000)),
            self._next_hold - time.monotonic(),
            RETRY_SEND_S if failed else float("inf"),
            float(self.max_interval),
        )
        return max(wait, 0.001)

    def close(self) -> None:
        # A beat that stops gives the lease up: another takes it at its next try, not only
        # once the lease has run out.
        if self._lease is not None and self._epoch is not None:
            try:
                if self._lease.release():
                    log.info("beat: released the lease (epoch %d)", self._epoch)
            except LEASE_FAULTS as exc:
                log.warning("beat: could not release the lease: %s", describe(exc))
        self._epoch = None
        super().close()

    @property
    def info(self) -> str:
        return "    . lease -> one beat of any number sends, under a fenced lease in Redis"
