"""How the kit stands a busy service: its own calls are asked again, within a budget.

The engine asks again by itself when a type's step raises Throttled or Transient (the SDK's
"ask again later"); the kit's own calls must do the same, or a check would fail on the
weather rather than on the type. The kit's calls of the type's `observe`, its previews (an
entry whose `reality` could not be read for a passing reason, `"retryable": true`) and its
wait for a create's start to begin are made again while a RetryBudget lasts: at most
`attempts` calls in all, and at most `seconds` spent waiting between them, each wait the
Throttled's `retry_after` when it gives one (never less), else a short wait that doubles.
When the budget runs out the check fails with ServiceBusy, which says that the service
stayed busy, not that the type did something wrong.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from conv_tasks.provider_errors import Throttled, Transient
from conv_tasks.testing.report import CheckFailed

T = TypeVar("T")


@dataclass(frozen=True)
class RetryBudget:
    """How long the kit keeps asking a busy service (TypeCase.retries): at most `attempts`
    calls of one thing, waiting at most `seconds` in all between them; a wait is the
    service's retry_after when it gives one, else `first_wait` doubled after each call, up
    to `longest_wait`."""

    attempts: int = 8
    seconds: float = 60.0
    first_wait: float = 0.2
    longest_wait: float = 5.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryBudget.attempts is at least 1, not {self.attempts!r}")
        if self.seconds < 0 or self.first_wait < 0 or self.longest_wait < 0:
            raise ValueError("RetryBudget's seconds and waits are 0 or more")

    def wait(self, calls: int, retry_after: float | None) -> float:
        """Seconds before the next call, after `calls` calls the service put off."""
        ours = min(self.longest_wait, self.first_wait * 2 ** max(0, calls - 1))
        return max(ours, retry_after or 0.0)

    def describe(self) -> str:
        return f"{self.attempts} calls, {self.seconds:g} s of waiting"


class ServiceBusy(CheckFailed):
    """The service put off every call the kit's budget allowed: the check could not be made.
    Not a verdict on the type, unless the service was not busy at all."""

    def __init__(self, step: str, calls: int, waited: float, last: Exception, budget: str) -> None:
        kind = type(last).__name__
        super().__init__(
            step,
            f"the service stayed busy: {calls} call(s) over {waited:.1f} s were all put off "
            f"({kind}: {_first_line(last)}), and the kit's retry budget ({budget}; "
            "TypeCase.retries) ran out. That is the service's weather, not a fault the kit "
            f"found in the type (unless the service was not busy: then the type raises {kind} "
            "when it should not)",
        )
        self.calls = calls


@dataclass
class Retrier:
    """Makes the kit's calls again while its budget lasts, and counts the answers that were
    put off (all checks together: a check's share is the difference)."""

    budget: RetryBudget
    sleep: Callable[[float], None] = time.sleep
    put_off: int = 0

    def call(self, step: str, attempt: Callable[[], T]) -> T:
        """`attempt()`, made again while it raises Throttled or Transient and the budget
        lasts; ServiceBusy (failing the check at `step`) when it runs out."""
        calls, waited = 0, 0.0
        while True:
            calls += 1
            try:
                return attempt()
            except Transient as exc:
                self.put_off += 1
                after = exc.retry_after if isinstance(exc, Throttled) else None
                wait = self.budget.wait(calls, after)
                if calls >= self.budget.attempts or waited + wait > self.budget.seconds:
                    raise ServiceBusy(step, calls, waited, exc, self.budget.describe()) from None
                self.sleep(wait)
                waited += wait


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else "no message"
