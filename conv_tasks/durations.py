"""Durations as operators write them: `90s`, `15m`, `12h`, `30d`, or a bare number of seconds.

Pure parsing, shared by the settings (retention periods) and the CLI (`db purge
--older-than`). It never reads the environment.
"""

from __future__ import annotations

import math
import re

SECONDS_PER_UNIT = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[smhd]?)")


def parse_duration(text: str, *, unit_required: bool = False) -> float:
    """Seconds in `text`, a positive number with an optional unit s, m, h or d.

    With `unit_required`, a bare number is refused: on a command line, `30`
    would mean thirty seconds to us and thirty days to someone used to Heat's
    purge_deleted. Raises ValueError with a sentence saying what is accepted.
    """
    match = _DURATION.fullmatch(text.strip().lower())
    accepted = "a number with a unit s, m, h or d, such as 90s, 15m, 12h or 30d"
    if match is None or (unit_required and not match["unit"]):
        raise ValueError(f"must be {accepted}, got {text!r}")
    seconds = float(match["number"]) * SECONDS_PER_UNIT[match["unit"] or "s"]
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"must be greater than zero, got {text!r}")
    return seconds


def format_duration(seconds: float) -> str:
    """The largest whole unit that states `seconds` exactly: 2592000 -> 30d, 90 -> 90s."""
    for unit in ("d", "h", "m"):
        count = seconds / SECONDS_PER_UNIT[unit]
        if count >= 1 and count == int(count):
            return f"{int(count)}{unit}"
    return f"{seconds:g}s"
