"""The beats' lease and the workers' gate against the real Redis (conv_tasks.beat.lease)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from conv_tasks.beat import BeatKeys, BeatLease, JobGate, Stamp, Verdict

TASK = "conv_tasks.beat.watchdog"
KEEP = 60_000


@pytest.fixture
def prefix(redis_client: Any) -> Iterator[str]:
    name = f"lease-{uuid.uuid4().hex[:8]}"
    yield name
    client: redis.Redis = redis_client
    for key in client.scan_iter(match=f"{name}:*"):
        client.delete(key)


def lease(client: Any, prefix: str, holder: str, ttl_ms: int = 10_000) -> BeatLease:
    return BeatLease(client, prefix=prefix, holder=holder, ttl_ms=ttl_ms)


def test_one_beat_holds_the_lease_and_renews_it(redis_client: Any, prefix: str) -> None:
    a, b = lease(redis_client, prefix, "a"), lease(redis_client, prefix, "b")
    assert a.hold() == 1
    assert b.hold() is None
    assert a.hold() == 1  # renewed, same epoch
    assert a.holder_now() == "a"
    assert 9_000 < redis_client.pttl(BeatKeys(prefix).lease) <= 10_000


def test_a_lease_that_ran_out_goes_to_the_next_beat_with_a_new_epoch(
    redis_client: Any, prefix: str
) -> None:
    a, b = lease(redis_client, prefix, "a", ttl_ms=150), lease(redis_client, prefix, "b")
    assert a.hold() == 1
    while redis_client.exists(BeatKeys(prefix).lease):
        time.sleep(0.02)
    assert b.hold() == 2
    assert a.hold() is None  # a's renewal compares the holder: it is b's lease now


def test_released_lease_is_taken_at_once(redis_client: Any, prefix: str) -> None:
    a, b = lease(redis_client, prefix, "a"), lease(redis_client, prefix, "b")
    assert a.hold() == 1
    assert b.release() is False  # not b's to give up
    assert a.release() is True
    assert b.hold() == 2


def test_a_lost_epoch_count_starts_a_new_epoch(redis_client: Any, prefix: str) -> None:
    a = lease(redis_client, prefix, "a")
    assert a.hold() == 1
    redis_client.delete(BeatKeys(prefix).epoch)
    assert a.hold() == 1  # counted afresh, so messages of the old count are refused
    gate = JobGate(redis_client, prefix=prefix)
    assert gate.admit(TASK, Stamp(7, 0), keep_ms=KEEP) == (Verdict.UNKNOWN, 1)
    assert gate.admit(TASK, Stamp(1, 0), keep_ms=KEEP)[0] is Verdict.RUN


def test_the_gate_runs_each_slot_once_for_the_lease_epoch(redis_client: Any, prefix: str) -> None:
    a, b = lease(redis_client, prefix, "a"), lease(redis_client, prefix, "b")
    gate = JobGate(redis_client, prefix=prefix)
    # No beat ever held the lease: no epoch is known.
    assert gate.admit(TASK, Stamp(1, 30_000), keep_ms=KEEP) == (Verdict.UNKNOWN, 0)
    assert a.hold() == 1
    assert gate.admit(TASK, Stamp(1, 30_000), keep_ms=KEEP) == (Verdict.RUN, -1)
    assert gate.admit(TASK, Stamp(1, 30_000), keep_ms=KEEP) == (Verdict.DONE, 30_000)
    # Another job's slots are its own.
    assert gate.admit("conv_tasks.beat.purge", Stamp(1, 30_000), keep_ms=KEEP)[0] is Verdict.RUN
    assert a.release()
    assert b.hold() == 2
    # a's message for the next slot, sent before it knew it had lost the lease: fenced.
    assert gate.admit(TASK, Stamp(1, 60_000), keep_ms=KEEP) == (Verdict.STALE, 2)
    # b, new leader, sends the slot a already ran: refused; the next one runs.
    assert gate.admit(TASK, Stamp(2, 30_000), keep_ms=KEEP) == (Verdict.DONE, 30_000)
    assert gate.admit(TASK, Stamp(2, 60_000), keep_ms=KEEP) == (Verdict.RUN, 30_000)
    # A late message for an earlier slot does not run after a later one.
    assert gate.admit(TASK, Stamp(2, 0), keep_ms=KEEP) == (Verdict.DONE, 60_000)
    # An epoch from the future is no beat's.
    assert gate.admit(TASK, Stamp(9, 90_000), keep_ms=KEEP) == (Verdict.UNKNOWN, 2)


def test_the_gate_forgets_a_slot_after_its_keep(redis_client: Any, prefix: str) -> None:
    assert lease(redis_client, prefix, "a").hold() == 1
    gate = JobGate(redis_client, prefix=prefix)
    # A slot far ahead (a beat whose clock ran ahead) holds the job back only for a while.
    assert gate.admit(TASK, Stamp(1, 10**12), keep_ms=100)[0] is Verdict.RUN
    assert gate.admit(TASK, Stamp(1, 30_000), keep_ms=100)[0] is Verdict.DONE
    while redis_client.exists(BeatKeys(prefix).ran(TASK)):
        time.sleep(0.02)
    assert gate.admit(TASK, Stamp(1, 30_000), keep_ms=100)[0] is Verdict.RUN
