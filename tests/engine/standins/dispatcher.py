"""A recording dispatcher: what the engine enqueues, in order, and a worker that drains it.

Every payload is kept as it would cross the broker (through JSON), with its countdown and
when that makes it due on the test's clock. `drain` delivers the pending ones the way a
worker would (parse the payload, run the node), earliest due first and in the order they
were sent among equals, moving the clock on to a countdown instead of sleeping. A test
loses a message (a worker that died with it) with `lose`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conv_tasks.engine import EngineEnv, Outcome, parse_node_task, run_node

from .clock import StandinClock


@dataclass(frozen=True)
class Sent:
    """One payload the engine enqueued."""

    payload: Mapping[str, Any]
    countdown: float | None
    due: float  # epoch seconds on the test's clock
    order: int

    @property
    def node(self) -> str:
        return str(self.payload["node"])


@dataclass(frozen=True)
class Delivery:
    """One payload delivered, and what running its node did."""

    sent: Sent
    outcome: Outcome


class RecordingDispatcher:
    def __init__(self, clock: StandinClock) -> None:
        self._clock = clock
        self.sent: list[Sent] = []  # everything ever enqueued, in order
        self.pending: list[Sent] = []  # what no worker took yet

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        sent = Sent(
            json.loads(json.dumps(payload)),
            countdown,
            self._clock.time() + (countdown or 0.0),
            len(self.sent),
        )
        self.sent.append(sent)
        self.pending.append(sent)

    def nodes(self, payloads: Sequence[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def take(self) -> Sent:
        """The next pending payload a worker would take, with the clock moved to its time."""
        sent = min(self.pending, key=lambda s: (s.due, s.order))
        self.pending.remove(sent)
        self._clock.reach(sent.due)
        return sent

    def deliver(self, env: EngineEnv) -> Delivery:
        """Take the next payload and run its node."""
        sent = self.take()
        return Delivery(sent, run_node(env, parse_node_task(sent.payload)))

    def drain(
        self,
        env: EngineEnv,
        *,
        until: Callable[[], bool] | None = None,
        limit: int = 500,
    ) -> list[Delivery]:
        """Deliver until nothing is pending (or `until` says stop)."""
        done: list[Delivery] = []
        while self.pending and not (until is not None and until()):
            if len(done) >= limit:
                raise AssertionError(f"still delivering after {limit}: {done[-5:]}")
            done.append(self.deliver(env))
        return done

    def lose(self, keep: Callable[[Sent], bool] = lambda sent: False) -> list[Sent]:
        """Forget the pending payloads `keep` does not keep (a worker died holding them)."""
        lost = [sent for sent in self.pending if not keep(sent)]
        self.pending = [sent for sent in self.pending if keep(sent)]
        return lost
