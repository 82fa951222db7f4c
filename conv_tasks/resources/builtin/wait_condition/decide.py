"""What a wait condition decides from the signals its handle holds: wait, succeed or fail.

Heat's rules: any FAILURE signal fails the wait at once, with the reasons of
the FAILURE signals joined by ";"; `count` signals (all SUCCESS) complete it;
past its timeout it fails with "N of COUNT received" and the reasons of the
SUCCESS signals. The signals are judged before the clock, so a signal that
arrived in time counts even when the poll that sees it comes a little late.
Pure: no storage, no clock of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from conv_tasks.sdk import SignalStatus, WaitSignal

# Polls start this often and slow down as the wait grows (a tenth of it), up to the maximum.
MIN_POLL_SECS = 0.5
MAX_POLL_SECS = 5.0


class WaitOutcome(StrEnum):
    """Where a wait condition stands."""

    WAITING = "WAITING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    TIMED_OUT = "TIMED_OUT"


@dataclass(frozen=True)
class WaitVerdict:
    outcome: WaitOutcome
    reason: str = ""
    poll_after: float = MIN_POLL_SECS


def judge(
    signals: Sequence[WaitSignal], *, count: int, waited: float, timeout: float
) -> WaitVerdict:
    """The verdict after `waited` seconds of a wait for `count` signals within `timeout`."""
    failures = [s.reason for s in signals if s.status != SignalStatus.SUCCESS]
    if failures:
        return WaitVerdict(WaitOutcome.FAILED, ";".join(failures))
    if len(signals) >= count:
        return WaitVerdict(WaitOutcome.SUCCEEDED, f"{len(signals)} of {count} received")
    if waited >= timeout:
        received = f"{len(signals)} of {count} received"
        reasons = ";".join(s.reason for s in signals)
        text = f"{received} - {reasons}" if reasons else received
        return WaitVerdict(WaitOutcome.TIMED_OUT, text)
    return WaitVerdict(WaitOutcome.WAITING, poll_after=poll_after(waited, timeout))


def poll_after(waited: float, timeout: float) -> float:
    """Seconds until the next look: soon at first, less often as the wait grows, and never
    much past the timeout."""
    step = min(MAX_POLL_SECS, max(MIN_POLL_SECS, waited / 10))
    return max(MIN_POLL_SECS / 10, min(step, timeout - waited + 0.05))
