"""iso_8601, expiration, timezone and cron_expression accept what Heat accepts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from conv_tasks.constraints.cron import cron_expression
from conv_tasks.constraints.times import expiration, iso_8601, parse_iso_8601, timezone_name


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("2026", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-11", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-26", datetime(2026, 11, 26, tzinfo=UTC)),
        ("20261126", datetime(2026, 11, 26, tzinfo=UTC)),
        ("2026-1-2", datetime(2026, 1, 2, tzinfo=UTC)),
        ("2026-11-26T10", datetime(2026, 11, 26, 10, tzinfo=UTC)),
        ("2026-11-26T10:30", datetime(2026, 11, 26, 10, 30, tzinfo=UTC)),
        ("2026-11-26 10:30:15Z", datetime(2026, 11, 26, 10, 30, 15, tzinfo=UTC)),
        ("2026-11-26T103015", datetime(2026, 11, 26, 10, 30, 15, tzinfo=UTC)),
        ("2026-11-26T10:30:15.25Z", datetime(2026, 11, 26, 10, 30, 15, 250000, tzinfo=UTC)),
        ("2026-11-26T10:30:15,5", datetime(2026, 11, 26, 10, 30, 15, 500000, tzinfo=UTC)),
        (
            "2026-11-26T10:30:15+01:00",
            datetime(2026, 11, 26, 10, 30, 15, tzinfo=timezone(timedelta(hours=1))),
        ),
        (
            "2026-11-26T10:30-0130",
            datetime(2026, 11, 26, 10, 30, tzinfo=timezone(-timedelta(hours=1, minutes=30))),
        ),
        ("2026-11-26T10+05", datetime(2026, 11, 26, 10, tzinfo=timezone(timedelta(hours=5)))),
    ],
)
def test_iso_8601_forms_heat_reads(text: str, when: datetime) -> None:
    assert parse_iso_8601(text) == when
    assert iso_8601(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "202611",  # year and month without a dash: ambiguous, refused as Heat does
        "2026-13-01",
        "2026-02-30",
        "2026-11-26T24:00",
        "2026-11-26T10:60",
        "2026-11-26T10:30+24:00",
        "2026-W48-4",  # week dates
        "2026-11-26T10:30z",
        "26-11-2026",
        "tomorrow",
        " 2026-11-26",
        "\uff12\uff10\uff12\uff16",  # digits, but not ASCII ones
    ],
)
def test_iso_8601_refuses_the_rest(text: str) -> None:
    assert parse_iso_8601(text) is None
    assert iso_8601(text) == "is not an ISO 8601 date and time"


def test_expiration_must_be_in_the_future() -> None:
    now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
    assert expiration("2026-11-26T12:00:01Z", now=now) is None
    assert expiration(" 2027-01-01 ", now=now) is None  # surrounding spaces, as Heat strips
    assert expiration("2026-11-26T13:30:00+01:00", now=now) is None  # 12:30 UTC
    assert expiration("", now=now) is None
    assert "not in the future" in (expiration("2026-11-26T12:00:00Z", now=now) or "")
    assert "not in the future" in (expiration("2026-11-26T12:30+01:00", now=now) or "")
    assert "not in the future" in (expiration("2026-11-26T11:59", now=now) or "")  # naive: UTC
    assert expiration("soon", now=now) == "is not an ISO 8601 date and time"
    assert expiration(1893456000, now=now) == "must be a string"


def test_expiration_reads_the_clock_when_not_given_one() -> None:
    assert expiration("2999-01-01") is None
    assert expiration("2000-01-01") is not None


@pytest.mark.parametrize("name", ["UTC", "Europe/Paris", "America/Argentina/Buenos_Aires",
                                  "Etc/GMT+5", ""])  # fmt: skip
def test_timezone_takes_iana_names(name: str) -> None:
    assert timezone_name(name) is None


@pytest.mark.parametrize(
    "name", ["Europe", "Mars/Olympus_Mons", "../etc/passwd", "/etc/localtime", "zone.tab",
             "Europe/Paris\x00", "CET+1", "x" * 300],
)  # fmt: skip
def test_timezone_refuses_other_names(name: str) -> None:
    assert timezone_name(name) == (
        "is not a time zone of the IANA database (such as Europe/Paris or UTC)"
    )


@pytest.mark.parametrize(
    "value",
    [
        "",
        "* * * * *",
        "*/15 0-23/2 1,15,L * mon-fri",
        "0 0 L * ?",
        "0 0 1-L * *",
        "0 0 ? * SAT#2",
        "0 0 * * mon-fri#1",
        "0 0 * * L5",
        "0 0 * * 7",  # Sunday again
        "0 0 * * fri-mon",  # wraps around
        "0 0 * JAN-DEC/2 sun",
        "5/10 * * * *",
        "0 0 1 1 * 30",  # seconds
        "0 0 1 1 * 30 2030",  # and a year
        "@daily",
        "@Annually",
    ],
)
def test_cron_expression_takes_what_croniter_does(value: str) -> None:
    assert cron_expression(value) is None


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (" ", "has 0 fields"),
        ("0 0 * *", "has 4 fields"),
        ("* * * * * * * *", "has 8 fields"),
        ("@often", "has 1 fields"),
        ("60 * * * *", "minute field: values go from 0 to 59"),
        ("0 24 * * *", "hour field: values go from 0 to 23"),
        ("0 0 0 * *", "day of month field: values go from 1 to 31"),
        ("0 0 * 13 *", "month field: values go from 1 to 12"),
        ("0 0 * * 8", "day of week field: values go from 0 to 7"),
        ("0 0 1 1 * 60", "second field"),
        ("0 0 1 1 * 0 2100", "year field: values go from 1970 to 2099"),
        ("*/0 * * * *", "a step must be a whole number above 0"),
        ("*/x * * * *", "a step must be"),
        ("? * * * *", "'?' is for days only"),
        ("0 0 * * mon#6", "after '#' must be 1 to 5"),
        ("0 0 L-5 * *", "day of month field"),
        ("0 0 * * L", "day of week field"),
        ("0 0 * foo *", "month field: expected a number or a name (jan, feb"),
        ("H * * * *", "minute field"),  # croniter's hashed items need a seed
        ("1,,2 * * * *", "minute field"),
    ],
)
def test_cron_expression_refuses_and_names_the_field(value: str, why: str) -> None:
    reason = cron_expression(value)
    assert reason is not None and why in reason, reason


@pytest.mark.parametrize("value", [5, None, ["* * * * *"]])
def test_time_checkers_refuse_what_is_not_text(value: Any) -> None:
    for checker in (iso_8601, expiration, timezone_name, cron_expression):
        assert checker(value) == "must be a string"
