"""A service's bad days, decided ahead: which of its answers are throttled and which fail.

A FaultPlan says how often a service misbehaves (`throttled`: it asks to be asked later;
`unavailable`: it fails for a moment) and from which seed the draws come, so that a run can
be told again. A Weather draws from one plan, one answer at a time, and only while it is
turned on. Its switch and its tally live in shared memory, so that a proxy in a process of
its own (http_faults, tcp_faults) draws while the test turns it on and off and reads what it
dealt: a proxy in the test's own process would stall whenever a client library holds the
interpreter while it waits for the proxy's answer (libpq's password encryption does).
Nothing here talks to a service.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

# Processes that share a Weather are started with "spawn": the test process has threads (its
# clients, the cluster's), which a fork would copy in whatever state they are.
SPAWN = multiprocessing.get_context("spawn")


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


class Weather:
    """Draws the answers of one service from `plan` while it is on (off, every answer is NONE
    and nothing is drawn), from the plan's seed each time it is turned on; counts the faults
    it dealt. Safe across threads, and across the processes it is handed to."""

    def __init__(self, plan: FaultPlan | None = None) -> None:
        self.plan = plan or FaultPlan()
        # on: 0 or 1; turns: how often it was turned on (a drawer starts again from the seed
        # when it changes); dealt: throttled, unavailable.
        self._shared: Any = SPAWN.Array("q", [0, 0, 0, 0])
        self._random = random.Random(self.plan.seed)
        self._turn = 0

    def __getstate__(self) -> dict[str, Any]:
        return {"plan": self.plan, "shared": self._shared}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.plan, self._shared = state["plan"], state["shared"]
        self._random, self._turn = random.Random(self.plan.seed), 0

    @property
    def on(self) -> bool:
        return bool(self._shared[0])

    def draw(self) -> Fault:
        with self._shared.get_lock():
            on, turns = self._shared[0], self._shared[1]
            if not on:
                return Fault.NONE
            if turns != self._turn:
                self._random, self._turn = random.Random(self.plan.seed), turns
            fault = self.plan.fault(self._random.random())
            if fault == Fault.THROTTLED:
                self._shared[2] += 1
            elif fault == Fault.UNAVAILABLE:
                self._shared[3] += 1
            return fault

    @property
    def dealt(self) -> dict[Fault, int]:
        """How many answers of each fault it dealt."""
        with self._shared.get_lock():
            return {Fault.THROTTLED: self._shared[2], Fault.UNAVAILABLE: self._shared[3]}

    def faults_dealt(self) -> int:
        return sum(self.dealt.values())

    @contextlib.contextmanager
    def turned_on(self) -> Iterator[Weather]:
        """The service misbehaves inside the block, from the plan's seed each time."""
        with self._shared.get_lock():
            self._shared[1] += 1
            self._shared[0] = 1
        try:
            yield self
        finally:
            with self._shared.get_lock():
                self._shared[0] = 0
