"""`conv-tasks db purge`, run as a user runs it, against the real test database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from retention_world import World, world

CONV_TASKS = str(Path(sys.executable).with_name("conv-tasks"))


def conv_tasks(*args: str) -> subprocess.CompletedProcess[str]:
    # The environment tests/conftest.py set: the test database, Redis and broker.
    return subprocess.run(
        [CONV_TASKS, *args], capture_output=True, text=True, env=dict(os.environ), timeout=120
    )


@pytest.fixture
def made(database_url: str) -> Iterator[World]:
    with world(database_url) as w:
        yield w


def test_purge_deletes_stacks_deleted_before_the_age_given(made: World) -> None:
    # 25 days: older than --older-than 20d, younger than beat's default retention (30 days).
    gone = made.stack("gone", created_days=40, deleted_days=25, resources=2)
    made.events(gone, 5, days=25)
    kept = made.stack("kept", created_days=40, deleted_days=15, resources=1)
    live = made.stack("live", created_days=40, resources=1)
    old_events = made.events(live, 6, days=25)
    recent_events = made.events(live, 2, days=0.1)

    done = conv_tasks("db", "purge", "--older-than", "20d", "--batch-size", "2")

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "Purged 1 stack(s) deleted more than 20d ago (2 resource(s), 5 event(s)), "
        "0 event(s) of live stacks older than 30d, "
    )
    assert not made.stack_exists(gone)
    assert made.stack_exists(kept) and made.resource_count(kept) == 1
    # Events of live stacks go by their own retention (30 days by default): these stay.
    assert made.event_ids(live) == old_events + recent_events

    done = conv_tasks(
        "--json", "db", "purge", "--older-than", "20d", "--events-older-than", "20d",
        "--keep-events", "3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["stacks"], report["old_events"], report["finished"]) == (0, 5, True)
    assert made.event_ids(live) == old_events[-1:] + recent_events
    assert made.resource_count(live) == 1


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["--older-than", "30"], "with a unit s, m, h or d"),
        (["--older-than", "thirty days"], "such as 90s, 15m, 12h or 30d"),
        (["--events-older-than", "0d"], "greater than zero"),
        (["--batch-size", "0"], "--batch-size"),
    ],
)
def test_purge_refuses_an_age_without_unit_and_deletes_nothing(
    args: list[str], complaint: str
) -> None:
    done = conv_tasks("db", "purge", *args)
    assert done.returncode == 2
    assert complaint in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
