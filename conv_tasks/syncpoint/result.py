"""What one satisfy call did to a SyncPoint, and whether its caller must trigger the node.

A plain value: it never talks to Redis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

COMPLETED = "completed"
PENDING = "pending"
DUPLICATE = "duplicate"
MISSING = "missing"
OUTCOMES = frozenset({COMPLETED, PENDING, DUPLICATE, MISSING})


@dataclass(frozen=True)
class SatisfyResult:
    """The outcome of one satisfy call.

    outcome is "completed" (this call completed the point), "pending" (counted,
    others still missing), "duplicate" (this predecessor had satisfied it
    before: counted once only) or "missing" (no such SyncPoint). completed_by
    is the predecessor whose call completed the point, once it is complete.
    data is the merged {predecessor: its data}, given with "completed" and
    with a "duplicate" from the predecessor that completed the point.
    """

    outcome: str
    completed_by: str | None
    data: Mapping[str, Any] | None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown SyncPoint outcome {self.outcome!r}")

    @property
    def complete(self) -> bool:
        """Whether the point is complete (by this call or an earlier one)."""
        return self.completed_by is not None

    def should_trigger(self, predecessor: str) -> bool:
        """Whether the caller, satisfying as `predecessor`, must enqueue the node.

        A redelivered task that completed the point may have died before it
        enqueued the node, so its duplicate triggers again: the node is
        idempotent, and a lost trigger would stall the traversal.
        """
        if self.outcome == COMPLETED:
            return True
        return self.outcome == DUPLICATE and self.completed_by == predecessor
