"""cron_expression: a schedule in cron's notation, as Heat (through croniter) accepts it.

Five fields (minute, hour, day of month, month, day of week), then optionally seconds and a
year; or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly. A field
is a comma-separated list of items: `*`, a value, a range `a-b` (it may wrap: `fri-mon`), any
of these with a step (`*/15`, `1-30/2`, `5/10`: from 5 to the end); months and weekdays by
their three-letter English names too, in any case. The day of month may be `L` (the last)
and `?` (any); the day of week may be `?`, `N#K` (the K-th weekday N of the month, K from 1
to 5) or `LN` (the last weekday N). Hashed (`H`) and random (`R`) items are croniter
extensions that need a seed; they are refused. An empty value passes, as in Heat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from conv_tasks.constraints.network import NOT_TEXT

ALIASES = frozenset(
    ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] means low + i
    day_of_month: bool = False
    day_of_week: bool = False


_FIELDS = (
    _Field("minute", 0, 59),
    _Field("hour", 0, 23),
    _Field("day of month", 1, 31, day_of_month=True),
    _Field("month", 1, 12, MONTHS),
    _Field("day of week", 0, 7, WEEKDAYS, day_of_week=True),  # 7 is Sunday again
    _Field("second", 0, 59),
    _Field("year", 1970, 2099),
)
_NTH_WEEKDAY = re.compile(r"(?P<day>[a-z0-9-]+)#(?P<nth>[0-9]+)")
_LAST_WEEKDAY = re.compile(r"l(?P<day>[0-9]+)")


def cron_expression(value: Any) -> str | None:
    """A cron schedule (5 to 7 fields, or an @alias)."""
    if not isinstance(value, str):
        return NOT_TEXT
    text = value.lower()
    if value == "" or text in ALIASES:
        return None
    fields = text.split()
    if len(fields) not in (5, 6, 7):
        return f"has {len(fields)} fields; a cron expression has 5, 6 (seconds) or 7 (a year)"
    for spec, field in zip(fields, _FIELDS, strict=False):
        reason = _field_problem(spec, field)
        if reason is not None:
            return f"has a bad {field.name} field: {reason}"
    return None


def _field_problem(spec: str, field: _Field) -> str | None:
    if spec == "?":
        return None if field.day_of_month or field.day_of_week else "'?' is for days only"
    for item in spec.split(","):
        reason = _item_problem(item, field)
        if reason is not None:
            return reason
    return None


def _item_problem(item: str, field: _Field) -> str | None:
    if field.day_of_week:
        special = _NTH_WEEKDAY.fullmatch(item) or _LAST_WEEKDAY.fullmatch(item)
        if special is not None:
            nth = special.groupdict().get("nth")
            if nth is not None and not 1 <= int(nth) <= 5:
                return "the week of the month after '#' must be 1 to 5"
            return _range_problem(special["day"], field)
    body, slash, step = item.partition("/")
    if slash and (not step.isascii() or not step.isdigit() or int(step) == 0):
        return "a step must be a whole number above 0"
    return _range_problem(body, field)


def _range_problem(body: str, field: _Field) -> str | None:
    if body == "*":
        return None
    low, dash, high = body.partition("-")
    if dash:
        return _value_problem(low, field) or _value_problem(high, field, last_allowed=True)
    return _value_problem(body, field, last_allowed=True)


def _value_problem(text: str, field: _Field, *, last_allowed: bool = False) -> str | None:
    if field.day_of_month and text == "l" and last_allowed:
        return None  # the last day of the month, alone or as a range's end
    if text in field.names:
        return None
    if not text.isascii() or not text.isdigit():
        names = f" or a name ({', '.join(field.names)})" if field.names else ""
        return f"expected a number{names}, '*' or a range"
    if not field.low <= int(text) <= field.high:
        return f"values go from {field.low} to {field.high}"
    return None
