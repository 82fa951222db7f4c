"""How the web view says things: statuses as an icon and words, durations, times, the CLI
commands for a stack, pages of a long list. Pure functions the templates call.

A status is never told by colour alone: each has a symbol and its words, and the colour
(a CSS class) only repeats them.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Badge:
    """A status as the page shows it: a symbol, the words, and a CSS class."""

    icon: str
    text: str
    css: str
    label: str  # what a screen reader says for the symbol


_KINDS: tuple[tuple[str, str, str, str], ...] = (
    # (the status ends with, icon, css class, what the icon means)
    ("FAILED", "\u2716", "failed", "failed"),
    ("IN_PROGRESS", "\u21bb", "in-progress", "in progress"),
    # A suspended stack or resource is neither busy nor live: paused (stack suspend).
    ("SUSPEND_COMPLETE", "\u23f8", "suspended", "suspended"),
    ("COMPLETE", "\u2714", "complete", "complete"),
    ("SUPERSEDED", "\u21e2", "superseded", "superseded"),
    ("NOT_STARTED", "\u25cb", "not-started", "not started"),
    ("CLEANED", "\u2298", "cleaned", "cleaned up"),
)


def badge(status: str | None) -> Badge:
    """CREATE_FAILED -> (✖, "CREATE FAILED", "failed")."""
    status = status or "UNKNOWN"
    for end, icon, css, label in _KINDS:
        if status.endswith(end):
            return Badge(icon, status.replace("_", " "), css, label)
    return Badge("\u2022", status.replace("_", " "), "other", "status")


_ATTENTION = {
    "failed": "failed",
    "check-failed": "check failed",
    "past-half-timeout": "past half its timeout",
    "watchdog": "restarted by the watchdog",
}


def attention_text(reason: str | None) -> str:
    """Why a stack needs attention, in words."""
    return _ATTENTION.get(reason or "", (reason or "").replace("-", " "))


def duration(seconds: float | None) -> str:
    """90 -> "1 min 30 s"; 3725 -> "1 h 02 min"; None -> an en dash."""
    if seconds is None:
        return "\u2013"
    seconds = max(0.0, float(seconds))
    if seconds < 1:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes:02d} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours:02d} h"


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def when(value: str | None) -> str:
    """An ISO time as the pages print it: "2026-11-26 10:31:22 UTC"."""
    moment = parse_time(value)
    if moment is None:
        return "\u2013"
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def until(value: str | None, now: datetime) -> str:
    """How long from `now` to an ISO time: "in 4 min 10 s", or "4 min 10 s ago" once past."""
    moment = parse_time(value)
    if moment is None:
        return ""
    left = (moment - now).total_seconds()
    return f"in {duration(left)}" if left >= 0 else f"{duration(-left)} ago"


def cli_commands(stack_id: str, tenant: str) -> list[str]:
    """The commands that show this stack from a terminal."""
    ref = shlex.quote(stack_id)
    conv = f"conv-tasks --tenant {shlex.quote(tenant)}" if tenant != "default" else "conv-tasks"
    return [
        f"{conv} stack show {ref}",
        f"{conv} stack events {ref}",
        f"{conv} stack resources {ref}",
        f"openstack stack show {ref}",
    ]


def counts_text(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Resource counts by state, biggest first, as (state in words, count)."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(state.replace("_", " "), n) for state, n in ordered if n]


@dataclass(frozen=True)
class Slice:
    """One page of a long list, numbered from 1."""

    items: Sequence[Any]
    number: int
    pages: int
    total: int
    first: int  # the position of its first item, from 1 (0 when empty)

    @property
    def last(self) -> int:
        return self.first + len(self.items) - 1 if self.items else 0


def page_of(items: Sequence[T], number: int, size: int) -> Slice:
    """Page `number` (clamped to the last) of `items`, `size` a page."""
    pages = max(1, -(-len(items) // size))
    number = min(max(1, number), pages)
    start = (number - 1) * size
    chunk = items[start : start + size]
    return Slice(chunk, number, pages, len(items), start + 1 if chunk else 0)


def pretty(value: Any) -> str:
    """A JSON value as the drawer prints it (the page escapes it)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
