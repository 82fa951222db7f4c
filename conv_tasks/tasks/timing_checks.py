"""Timing settings that fight each other, refused or warned about as a worker or beat starts.

The engine's timings work together: a node's lease (CONV_TASKS_LOCK_TTL) must outlive a step,
the broker must not hand a message held by a running or waiting worker to another
(CONV_TASKS_VISIBILITY_TIMEOUT, Redis only), and the watchdog must not take a healthy
traversal for a stalled one (CONV_TASKS_STALL_AFTER). Short values are fine alone, and tests
use them, but some combinations cannot work: with a 10 s lease, a 20 s stall time and a 30 s
visibility timeout, a throttled create took minutes while the watchdog "resumed" it every
25 s (issue 31). What cannot work stops the process with one line naming the settings; what
only risks it is a warning, logged once. `judge_timings` decides, purely;
`check_timings` logs and stops. docs/operations/configuration.md, "Timings that work
together", says the same rules.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from conv_tasks.settings import Settings

log = logging.getLogger("conv_tasks.settings")

LOCK_TTL = "CONV_TASKS_LOCK_TTL"
STALL_AFTER = "CONV_TASKS_STALL_AFTER"
VISIBILITY_TIMEOUT = "CONV_TASKS_VISIBILITY_TIMEOUT"


@dataclass(frozen=True)
class Timings:
    """What the engine itself waits, beside the settings: the longest backoff after a
    transient fault or a throttle, and the longest step any installed type may take (its
    step budget), with that type's name."""

    longest_backoff: float
    longest_step: float
    slowest_type: str


@dataclass(frozen=True)
class TimingVerdict:
    refusals: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def judge_timings(settings: Settings, timings: Timings, *, redis_broker: bool) -> TimingVerdict:
    """Which timing settings cannot work together (refusals) and which risk it (warnings)."""
    ttl, stall, visible = settings.lock_ttl, settings.stall_after, settings.visibility_timeout
    refusals: list[str] = []
    warnings: list[str] = []
    if stall <= ttl:
        # A node that waits out a dead holder's lease waits `ttl` without a heartbeat.
        refusals.append(
            f"{STALL_AFTER} ({stall:g} s) must be longer than {LOCK_TTL} ({ttl:g} s): a "
            "traversal waiting out a lease would always be resumed by the watchdog"
        )
    elif stall <= timings.longest_backoff:
        warnings.append(
            f"{STALL_AFTER} ({stall:g} s) is not longer than the engine's longest backoff "
            f"({timings.longest_backoff:g} s): the watchdog resumes healthy traversals whose "
            "nodes are backing off from a throttling or failing service"
        )
    if redis_broker and visible <= ttl:
        refusals.append(
            f"{VISIBILITY_TIMEOUT} ({visible:g} s) must be longer than {LOCK_TTL} ({ttl:g} s): "
            "Redis would hand a node's message to a second worker while the first still holds "
            "its lease"
        )
    elif redis_broker and visible <= timings.longest_backoff:
        warnings.append(
            f"{VISIBILITY_TIMEOUT} ({visible:g} s) is not longer than the engine's longest "
            f"backoff ({timings.longest_backoff:g} s): Redis delivers a delayed poll twice"
        )
    if ttl <= timings.longest_step:
        warnings.append(
            f"{LOCK_TTL} ({ttl:g} s) is not longer than the step budget of "
            f"{timings.slowest_type} ({timings.longest_step:g} s): a step that takes its "
            "whole budget loses its lease, and another worker takes its action over"
        )
    return TimingVerdict(tuple(refusals), tuple(warnings))


def check_timings(
    process: str, settings: Settings, timings: Timings, *, redis_broker: bool
) -> TimingVerdict:
    """Log each warning once; exit (status 1) with one line when a refusal stands."""
    verdict = judge_timings(settings, timings, redis_broker=redis_broker)
    for warning in verdict.warnings:
        log.warning("%s", warning)
    if verdict.refusals:
        raise SystemExit(
            f"conv-tasks {process} cannot start: {'; '.join(verdict.refusals)} "
            "(docs/operations/configuration.md, Timings that work together)."
        )
    return verdict
