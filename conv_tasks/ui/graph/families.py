"""Status families: the five looks a node's live status can have (complete, in progress,
failed, not started, cleaned), and how each is drawn.

A status is shown as text on every node; the family only chooses its colours and border, so
that a reader who cannot tell the colours apart loses nothing. Pure: strings in, strings out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

# What conv_tasks.stack.graph calls a node with nothing done yet, and a clean-up node with
# nothing left to remove (the engine's words; this package does not import the engine).
NOT_STARTED = "NOT_STARTED"
CLEANED = "CLEANED"


class Family(StrEnum):
    """How a status looks. The values are the words of a collapsed node's counts."""

    COMPLETE = "complete"
    IN_PROGRESS = "in progress"
    FAILED = "failed"
    NOT_STARTED = "not started"
    CLEANED = "cleaned"


# The order counts are listed in: "12: 10 complete, 2 failed".
FAMILY_ORDER = tuple(Family)


def family_of(status: str) -> Family:
    """The family of a live status (`CREATE_FAILED`, `NOT_STARTED`, `CLEANED`, ...)."""
    if status.endswith("_FAILED"):
        return Family.FAILED
    if status.endswith("_IN_PROGRESS"):
        return Family.IN_PROGRESS
    # A version whose delete completed is gone: it looks like a cleaned node, not a live one.
    if status in (CLEANED, "DELETE_COMPLETE"):
        return Family.CLEANED
    if status.startswith("INIT_") or not status.endswith("_COMPLETE"):
        return Family.NOT_STARTED
    return Family.COMPLETE


def is_focus(status: str) -> bool:
    """Whether a node is one a trimmed graph keeps for its own sake (failed or in progress)."""
    return family_of(status) in (Family.FAILED, Family.IN_PROGRESS)


@dataclass(frozen=True)
class Look:
    """The DOT attributes of one family: fill, border colour, border style and width."""

    fill: str
    border: str
    style: str
    penwidth: float


LOOKS: dict[Family, Look] = {
    Family.COMPLETE: Look("#cfe8c5", "#38761d", "rounded,filled", 1.0),
    Family.IN_PROGRESS: Look("#fff0a8", "#b45f06", "rounded,filled,bold", 2.0),
    Family.FAILED: Look("#f6c4bf", "#a61c00", "rounded,filled,bold", 3.0),
    Family.NOT_STARTED: Look("#f3f3f3", "#8c8c8c", "rounded,filled,dashed", 1.0),
    Family.CLEANED: Look("#ffffff", "#b7b7b7", "rounded,filled,dotted", 1.0),
}

_NOT_CLASS_CHARS = re.compile(r"[^a-z0-9_]+")
MAX_CLASS_CHARS = 64


def status_class(status: str) -> str:
    """`status-<lowercase status>`: a CSS class name whatever the status holds."""
    word = _NOT_CLASS_CHARS.sub("-", status.lower())[:MAX_CLASS_CHARS].strip("-")
    return f"status-{word or 'unknown'}"
