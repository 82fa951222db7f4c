"""Times: iso_8601, expiration and timezone, as Heat accepts them.

Heat reads ISO 8601 with the iso8601 library. The forms it takes, and so the forms taken
here: a year (`2026`), a month (`2026-11`), a date (`2026-11-26`, `20261126`), then after
`T` or a space a time of hours, minutes and seconds with or without colons (`T10`,
`T10:30`, `T103015`, `T10:30:15.25`, a comma for the fraction too), then `Z` or an offset
(`+01`, `+0100`, `-01:00`). No time zone means UTC. Week dates and ordinal dates are not
taken, as in Heat.

`expiration` depends on the clock: it is checked when a request is made, never again.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from conv_tasks.constraints.network import NOT_TEXT

_ISO_8601 = re.compile(
    r"""
    (?P<year>[0-9]{4})
    (?:
        (?:-(?P<month_dashed>[0-9]{1,2}) | (?P<month>[0-9]{2})(?!$))
        (?:
            (?:-(?P<day_dashed>[0-9]{1,2}) | (?P<day>[0-9]{2}))
            (?:
                [T\x20](?P<hour>[0-9]{2})
                (?::?(?P<minute>[0-9]{2}))?
                (?::?(?P<second>[0-9]{1,2})(?:[.,](?P<fraction>[0-9]+))?)?
                (?P<zone>Z|(?P<sign>[-+])(?P<zone_hours>[0-9]{2}):?(?P<zone_minutes>[0-9]{2})?)?
            )?
        )?
    )?
    """,
    re.VERBOSE,
)


def parse_iso_8601(text: str) -> datetime | None:
    """The time `text` writes (aware; UTC when it names no zone), or None if it writes none."""
    match = _ISO_8601.fullmatch(text)
    if match is None:
        return None
    part = match.groupdict()

    def number(*names: str, default: int = 0) -> int:
        for name in names:
            if part[name] is not None:
                return int(part[name])
        return default

    zone = UTC
    if part["sign"] is not None:
        offset = timedelta(hours=number("zone_hours"), minutes=number("zone_minutes"))
        try:
            zone = timezone(-offset if part["sign"] == "-" else offset)
        except ValueError:
            return None  # an offset of a day or more
    fraction = part["fraction"] or ""
    try:
        return datetime(
            number("year"),
            number("month_dashed", "month", default=1),
            number("day_dashed", "day", default=1),
            number("hour"),
            number("minute"),
            number("second"),
            int((fraction + "000000")[:6]),
            tzinfo=zone,
        )
    except ValueError:
        return None  # month 13, 30 February, hour 24, ...


def iso_8601(value: Any) -> str | None:
    """A date or a date and time in ISO 8601."""
    if not isinstance(value, str):
        return NOT_TEXT
    return None if parse_iso_8601(value) is not None else "is not an ISO 8601 date and time"


def expiration(value: Any, *, now: datetime | None = None) -> str | None:
    """An ISO 8601 time in the future (an empty value passes, as in Heat)."""
    if not isinstance(value, str):
        return NOT_TEXT
    if value.strip() == "":
        return None
    when = parse_iso_8601(value.strip())
    if when is None:
        return "is not an ISO 8601 date and time"
    if when <= (now or datetime.now(UTC)):
        return "is not in the future (the expiration has passed)"
    return None


def timezone_name(value: Any) -> str | None:
    """An IANA time zone name such as Europe/Paris or UTC (an empty value passes)."""
    if not isinstance(value, str):
        return NOT_TEXT
    if value == "":
        return None
    try:
        zoneinfo.ZoneInfo(value)
    except (ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):
        return "is not a time zone of the IANA database (such as Europe/Paris or UTC)"
    return None
