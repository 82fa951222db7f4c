"""The stand-in services' clock: what PostgreSQL's now() and Redis's TIME say in a test.

Leases expire, rows are stamped, and heartbeats, action starts, action deadlines and
stack timeouts are dated by this clock (the engine decides those by PostgreSQL's), and it
moves only when the test moves it (or the dispatcher's drain reaches a countdown): two
operations started without the clock moving start at the same instant. The watchdog still
reads the wall clock for its "now" (it is handed no clock), so a test that needs it dates a
row back instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta


@dataclass
class StandinClock:
    """A clock that starts at the wall clock's time and moves only when told."""

    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def now(self) -> datetime:
        return self.at

    def time(self) -> float:
        """The same instant as epoch seconds (Redis's TIME)."""
        return self.at.timestamp()

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)

    def reach(self, moment: float) -> None:
        """Move on to `moment` (epoch seconds), unless it has passed already."""
        if moment > self.time():
            self.at = datetime.fromtimestamp(moment, UTC)
