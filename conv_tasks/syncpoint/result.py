"""What finishing one node set in motion in the SyncPoints: a plain value, never Redis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class FinishOutcome(StrEnum):
    OK = "ok"  # the node's successors were satisfied
    REPEAT = "repeat"  # the node had finished before: a redelivery; only lost triggers are repeated
    MISSING = "missing"  # the node has no point: the traversal is over, or Redis lost it


@dataclass(frozen=True)
class Handoff:
    """The outcome of SyncPointStore.finish.

    `triggered` are the successors whose point this call completed (or, on a
    repeat, completed before and that have not finished since), each with the
    outputs of all its predecessors: the caller enqueues them. `stack_input`
    is set when the stack's own point completed: the traversal is over.
    `missing` names successor points that do not exist.
    """

    outcome: FinishOutcome
    triggered: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    stack_input: Mapping[str, Any] | None = None
    missing: tuple[str, ...] = ()
