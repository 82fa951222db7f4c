"""Retention settings and the durations they are written in (`30d`, `12h`, `never`)."""

from __future__ import annotations

import pytest

from conv_tasks.durations import format_duration, parse_duration
from conv_tasks.errors import InvalidInput
from conv_tasks.settings import Settings

DAY = 86400.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("90s", 90), ("15m", 900), ("12h", 43200), ("30d", 30 * DAY), ("1.5h", 5400)],
)
def test_durations_take_a_unit(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(f" {text.upper()} ") == seconds


@pytest.mark.parametrize("text", ["", "d", "30 days", "-1d", "1w", "1e3", "nan", "inf", "0", "0d"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="must be"):
        parse_duration(text)


def test_a_command_line_duration_needs_its_unit() -> None:
    assert parse_duration("30d", unit_required=True) == 30 * DAY
    with pytest.raises(ValueError, match="with a unit s, m, h or d"):
        parse_duration("30", unit_required=True)


@pytest.mark.parametrize(
    ("seconds", "text"), [(30 * DAY, "30d"), (7200, "2h"), (90, "90s"), (120, "2m"), (1.5, "1.5s")]
)
def test_durations_are_written_back_in_their_largest_unit(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_retention_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.purge_deleted_after == 30 * DAY
    assert settings.event_retention == 30 * DAY
    assert settings.events_keep == 1000
    assert settings.purge_interval == 3600
    assert settings.purge_batch == 1000


def test_retention_is_read_with_units_or_never() -> None:
    settings = Settings.from_env(
        {
            "CONV_TASKS_PURGE_DELETED_AFTER": "7d",
            "CONV_TASKS_EVENT_RETENTION": "never",
            "CONV_TASKS_EVENTS_KEEP": "0",
            "CONV_TASKS_PURGE_INTERVAL": "15m",
            "CONV_TASKS_PURGE_BATCH": "500",
        }
    )
    assert settings.purge_deleted_after == 7 * DAY
    assert settings.event_retention is None
    assert settings.events_keep == 0
    assert settings.purge_interval == 900
    assert settings.purge_batch == 500
    assert (
        Settings.from_env({"CONV_TASKS_PURGE_DELETED_AFTER": "NEVER"}).purge_deleted_after is None
    )


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("CONV_TASKS_PURGE_DELETED_AFTER", "30 days", "or never"),
        ("CONV_TASKS_EVENT_RETENTION", "0", "greater than zero"),
        ("CONV_TASKS_PURGE_INTERVAL", "never", "with a unit"),
        ("CONV_TASKS_EVENTS_KEEP", "-1", "whole number from 0"),
        ("CONV_TASKS_PURGE_BATCH", "0", "whole number from 1"),
        ("CONV_TASKS_PURGE_BATCH", "1k", "whole number from 1"),
    ],
)
def test_bad_retention_settings_are_named(name: str, value: str, why: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({name: value})
    assert [p.path for p in caught.value.problems] == [name]
    assert why in str(caught.value)
