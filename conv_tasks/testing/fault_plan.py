"""A service's bad days, decided ahead: which of its answers are throttled and which fail.

A FaultPlan says how often a service misbehaves (`throttled`: it asks to be asked later;
`unavailable`: it fails for a moment) and from which seed the draws come, so that a run can
be told again. A Weather draws from one plan, one answer at a time, and only while it is
turned on: the fault injectors (http_faults.HttpFaultProxy, tcp_faults.TcpFaultProxy, and
the sandbox's own plan file, sandbox_faults) each keep one. Pure but for a lock: nothing here
talks to a service.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from enum import StrEnum


class Fault(StrEnum):
    """What one answer of the service is."""

    NONE = "none"  # the service answers as it should
    THROTTLED = "throttled"  # it asks to be asked later (HTTP 429 with Retry-After)
    UNAVAILABLE = "unavailable"  # it fails for a moment (HTTP 503, a connection dropped)


@dataclass(frozen=True)
class FaultPlan:
    """How often the service misbehaves: each answer is throttled with the probability
    `throttled` and unavailable with `unavailable` (the rest are answered), drawn from a
    generator seeded with `seed`. A throttled answer asks to be asked again after
    `retry_after` seconds. The default is the service the kit was first tested against: one
    answer in 15 throttled, one in 25 unavailable."""

    throttled: float = 1 / 15
    unavailable: float = 1 / 25
    retry_after: float = 1.0
    seed: int = 31

    def __post_init__(self) -> None:
        for name in ("throttled", "unavailable"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"FaultPlan.{name} is a probability (0 to 1), not {value!r}")
        if self.throttled + self.unavailable > 1.0:
            raise ValueError(
                "FaultPlan.throttled and FaultPlan.unavailable add up to more than 1 "
                f"({self.throttled + self.unavailable:g})"
            )
        if self.retry_after < 0:
            raise ValueError(
                f"FaultPlan.retry_after is seconds (0 or more), not {self.retry_after!r}"
            )

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def fault(self, draw: float) -> Fault:
        """What the answer is, for a draw in [0, 1)."""
        if draw < self.throttled:
            return Fault.THROTTLED
        if draw < self.throttled + self.unavailable:
            return Fault.UNAVAILABLE
        return Fault.NONE


@dataclass
class Weather:
    """Draws the answers of one service from `plan` while it is on (off, every answer is
    NONE and nothing is drawn); counts the faults it dealt. Safe across threads."""

    plan: FaultPlan = field(default_factory=FaultPlan)
    on: bool = False
    dealt: dict[Fault, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._random = random.Random(self.plan.seed)

    def draw(self) -> Fault:
        with self._lock:
            if not self.on:
                return Fault.NONE
            fault = self.plan.fault(self._random.random())
            if fault != Fault.NONE:
                self.dealt[fault] = self.dealt.get(fault, 0) + 1
            return fault

    def faults_dealt(self) -> int:
        with self._lock:
            return sum(self.dealt.values())

    @contextlib.contextmanager
    def turned_on(self) -> Iterator[Weather]:
        """The service misbehaves inside the block, from the plan's seed each time."""
        with self._lock:
            self._random = random.Random(self.plan.seed)
            self.on = True
        try:
            yield self
        finally:
            with self._lock:
                self.on = False
