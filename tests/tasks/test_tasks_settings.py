"""Settings.from_env: the configuration the workers and beat run with."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conv_tasks.errors import InvalidInput
from conv_tasks.settings import (
    DEFAULT_BROKER_URL,
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    Settings,
)

DURATIONS = {
    "CONV_TASKS_SYNCPOINT_TTL": "syncpoint_ttl",
    "CONV_TASKS_LOCK_TTL": "lock_ttl",
    "CONV_TASKS_STALL_AFTER": "stall_after",
    "CONV_TASKS_WATCHDOG_INTERVAL": "watchdog_interval",
    "CONV_TASKS_GC_INTERVAL": "gc_interval",
    "CONV_TASKS_VISIBILITY_TIMEOUT": "visibility_timeout",
    "CONV_TASKS_POLL_INTERVAL": "poll_interval",
    "CONV_TASKS_BROKER_HEARTBEAT": "broker_heartbeat",
}
URLS = {
    "CONV_TASKS_DATABASE_URL": "database_url",
    "CONV_TASKS_BROKER_URL": "broker_url",
    "CONV_TASKS_REDIS_URL": "redis_url",
}


def problem_paths(exc: InvalidInput) -> list[str]:
    return [p.path for p in exc.problems]


def test_empty_environment_gives_the_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.database_url == DEFAULT_DATABASE_URL
    assert settings.broker_url == DEFAULT_BROKER_URL
    assert settings.redis_url == DEFAULT_REDIS_URL
    assert settings.result_backend == DEFAULT_REDIS_URL
    assert settings.redis_prefix == "conv"
    assert settings.syncpoint_ttl == 7 * 24 * 3600.0
    assert settings.lock_ttl == 60.0
    assert settings.stall_after == 180.0
    assert settings.watchdog_interval == 30.0
    assert settings.gc_interval == 300.0
    assert settings.visibility_timeout == 600.0
    assert settings.poll_interval == 1.0
    assert settings.broker_heartbeat == 120.0


def test_empty_strings_count_as_unset() -> None:
    env = dict.fromkeys([*DURATIONS, *URLS, "CONV_TASKS_REDIS_PREFIX"], "")
    assert Settings.from_env(env) == Settings.from_env({})


def test_unrelated_variables_are_ignored() -> None:
    assert Settings.from_env({"PATH": "/bin", "CONV_TASKS_OTHER": "x"}) == Settings.from_env({})


@pytest.mark.parametrize(("variable", "attribute"), sorted(DURATIONS.items()))
def test_each_duration_is_read(variable: str, attribute: str) -> None:
    settings = Settings.from_env({variable: "2.5"})
    assert getattr(settings, attribute) == 2.5
    others = {a for a in DURATIONS.values() if a != attribute}
    defaults = Settings.from_env({})
    for other in others:
        assert getattr(settings, other) == getattr(defaults, other)


@pytest.mark.parametrize(("variable", "attribute"), sorted(URLS.items()))
def test_each_url_is_read(variable: str, attribute: str) -> None:
    url = "scheme://somewhere:1234/7"
    assert getattr(Settings.from_env({variable: url}), attribute) == url


def test_prefix_and_result_backend_are_read() -> None:
    settings = Settings.from_env(
        {"CONV_TASKS_REDIS_PREFIX": "run-1", "CONV_TASKS_RESULT_BACKEND": "redis://h/9"}
    )
    assert settings.redis_prefix == "run-1"
    assert settings.result_backend == "redis://h/9"


def test_result_backend_follows_the_redis_url_when_unset() -> None:
    settings = Settings.from_env({"CONV_TASKS_REDIS_URL": "redis://cache:6379/3"})
    assert settings.result_backend == "redis://cache:6379/3"


@pytest.mark.parametrize("variable", sorted(DURATIONS))
@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("soon", "must be a number"),
        ("1s", "must be a number"),
        ("0", "must be greater than zero"),
        ("0.0", "must be greater than zero"),
        ("-3", "must be greater than zero"),
    ],
)
def test_bad_duration_is_rejected_by_name(variable: str, raw: str, why: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({variable: raw})
    assert problem_paths(caught.value) == [variable]
    assert why in str(caught.value)
    assert repr(raw) in str(caught.value)
    assert str(caught.value).startswith("Invalid configuration")


def test_nan_duration_is_rejected() -> None:
    # float("nan") parses, and nan <= 0 is False; a NaN lock TTL is never a usable duration.
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"CONV_TASKS_LOCK_TTL": "nan"})
    assert problem_paths(caught.value) == ["CONV_TASKS_LOCK_TTL"]


@pytest.mark.parametrize("variable", sorted(URLS))
@pytest.mark.parametrize("raw", ["localhost:6379", "127.0.0.1", "postgres"])
def test_non_url_is_rejected_by_name(variable: str, raw: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({variable: raw})
    assert problem_paths(caught.value) == [variable]
    assert "must be a URL" in str(caught.value)


def test_every_problem_is_reported_together() -> None:
    env = {
        "CONV_TASKS_LOCK_TTL": "0",
        "CONV_TASKS_POLL_INTERVAL": "fast",
        "CONV_TASKS_BROKER_URL": "redis-host",
    }
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env(env)
    assert sorted(problem_paths(caught.value)) == sorted(env)


def test_task_event_flags_and_cache_budget() -> None:
    defaults = Settings.from_env({})
    flags = (defaults.task_events, defaults.task_sent_events, defaults.read_task_events)
    assert flags == (True, False, False)
    assert defaults.cache_bytes == 128 * 2**20
    chosen = Settings.from_env(
        {
            "CONV_TASKS_TASK_EVENTS": "off",
            "CONV_TASKS_TASK_SENT_EVENTS": "1",
            "CONV_TASKS_READ_TASK_EVENTS": "true",
            "CONV_TASKS_CACHE_MB": "0.5",
        }
    )
    assert (chosen.task_events, chosen.task_sent_events, chosen.read_task_events) == (
        False,
        True,
        True,
    )
    assert chosen.cache_bytes == 2**19


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CONV_TASKS_TASK_EVENTS", "maybe"),
        ("CONV_TASKS_TASK_SENT_EVENTS", "2"),
        ("CONV_TASKS_READ_TASK_EVENTS", "sometimes"),
        ("CONV_TASKS_CACHE_MB", "-1"),
        ("CONV_TASKS_CACHE_MB", "lots"),
    ],
)
def test_bad_flags_and_budgets_are_named(name: str, value: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({name: value})
    assert problem_paths(caught.value) == [name]


def test_strict_constraints_are_off_unless_asked_for() -> None:
    assert Settings.from_env({}).strict_constraints is False
    assert Settings.from_env({"CONV_TASKS_STRICT_CONSTRAINTS": "1"}).strict_constraints is True
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"CONV_TASKS_STRICT_CONSTRAINTS": "strict"})
    assert problem_paths(caught.value) == ["CONV_TASKS_STRICT_CONSTRAINTS"]


# Settings are parsed here, not by pydantic-settings or environs: measured, they add about
# 140 ms and 40 ms to every CLI command (docs/development/libraries.md), environs reads
# os.environ before any mapping it is given, and both would still need our durations,
# `never` and URL checks.


def test_only_the_mapping_given_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONV_TASKS_LOCK_TTL", "5")
    assert Settings.from_env({}).lock_ttl == 60.0
    assert Settings.from_env({"CONV_TASKS_LOCK_TTL": "7"}).lock_ttl == 7.0
    assert Settings.from_env().lock_ttl == 5.0


def test_a_bad_value_is_named_with_what_was_given_and_what_is_wanted() -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"CONV_TASKS_PURGE_BATCH": "0", "CONV_TASKS_EVENT_RETENTION": "soon"})
    text = str(caught.value)
    assert "CONV_TASKS_PURGE_BATCH" in text
    assert "whole number from 1, got '0'" in text
    assert "CONV_TASKS_EVENT_RETENTION" in text
    assert "or never" in text


def test_reading_settings_loads_no_validation_library() -> None:
    heavy = ("pydantic", "pydantic_settings", "environs", "marshmallow")
    probe = (
        "import sys, conv_tasks.settings as s; s.Settings.from_env({}); "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_edges_public_url_is_read_without_its_trailing_slash() -> None:
    settings = Settings.from_env({"CONV_TASKS_API_PUBLIC_URL": "https://edge.example:8004/ "})
    assert settings.api_public_url == "https://edge.example:8004"
    assert Settings.from_env({}).api_public_url == ""


@pytest.mark.parametrize(
    "raw", ["file:///srv/x", "edge.example:8004", "https://", "http://edge/?q=1", "ftp://edge"]
)
def test_an_edge_url_that_is_not_http_is_rejected_by_name(raw: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"CONV_TASKS_API_PUBLIC_URL": raw})
    assert problem_paths(caught.value) == ["CONV_TASKS_API_PUBLIC_URL"]
    assert repr(raw) in str(caught.value)


def test_rabbitmq_queues_are_quorum_queues_unless_classic_is_asked_for() -> None:
    assert Settings.from_env({}).rabbitmq_queue_type == "quorum"
    for raw, expected in (("classic", "classic"), (" Quorum ", "quorum"), ("", "quorum")):
        env = {"CONV_TASKS_RABBITMQ_QUEUE_TYPE": raw}
        assert Settings.from_env(env).rabbitmq_queue_type == expected, raw


@pytest.mark.parametrize("raw", ["mirrored", "stream", "quorum,classic"])
def test_an_unknown_queue_type_is_rejected_by_name(raw: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"CONV_TASKS_RABBITMQ_QUEUE_TYPE": raw})
    assert str(caught.value) == (
        "Invalid configuration: CONV_TASKS_RABBITMQ_QUEUE_TYPE: must be one of quorum, classic, "
        f"got {raw!r}"
    )
