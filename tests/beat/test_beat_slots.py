"""Slots and lease terms: the arithmetic every beat shares (conv_tasks.beat.slots), no I/O."""

from __future__ import annotations

import pytest

from conv_tasks.beat import Job, LeaseTerms, due, keep_ms, slot_of
from conv_tasks.beat.slots import MIN_LEASE_MS, until_next_slot

WATCHDOG = Job("watchdog", "conv_tasks.beat.watchdog", every_ms=30_000)
GC = Job("gc", "conv_tasks.beat.collect_templates", every_ms=300_000)


def test_slots_are_aligned_on_the_epoch_whoever_computes_them() -> None:
    assert slot_of(0, 30_000) == 0
    assert slot_of(29_999, 30_000) == 0
    assert slot_of(30_000, 30_000) == 30_000
    # Two beats whose clocks read different moments of one slot name the same slot.
    assert slot_of(1_764_166_201_234, 30_000) == slot_of(1_764_166_229_999, 30_000)


def test_a_beat_sends_each_slot_of_each_job_once() -> None:
    now = 600_000  # a slot start of both jobs
    first = due([WATCHDOG, GC], {}, now)
    assert first == [(WATCHDOG, 600_000), (GC, 600_000)]
    sent = {job.name: slot for job, slot in first}
    assert due([WATCHDOG, GC], sent, now + 29_999) == []
    assert due([WATCHDOG, GC], sent, now + 30_000) == [(WATCHDOG, 630_000)]


def test_a_beat_that_was_away_sends_only_the_current_slot() -> None:
    # Slots it missed while another beat led (or while it hung) are not caught up on.
    assert due([WATCHDOG], {"watchdog": 30_000}, 300_001) == [(WATCHDOG, 300_000)]


def test_the_wait_is_until_the_next_slot_of_any_job() -> None:
    assert until_next_slot([WATCHDOG, GC], 610_000) == 20.0
    assert until_next_slot([GC], 610_000) == 290.0
    assert until_next_slot([], 0) == float("inf")


def test_the_lease_lasts_half_the_shortest_interval() -> None:
    terms = LeaseTerms.for_jobs([GC, WATCHDOG])
    assert terms.ttl_ms == 15_000
    assert terms.renew_ms == 5_000
    # The holder trusts its lease for less than Redis keeps it, and renews twice before.
    assert 2 * terms.renew_ms < terms.trust_ms < terms.ttl_ms
    # Killed just after a renewal: the lease runs out, another beat's next try takes it,
    # all within one interval of the shortest job.
    assert terms.ttl_ms + terms.renew_ms < WATCHDOG.every_ms


def test_a_very_short_interval_still_gets_a_usable_lease() -> None:
    terms = LeaseTerms.for_jobs([Job("fast", "t", every_ms=50)])
    assert terms.ttl_ms == MIN_LEASE_MS
    assert terms.renew_ms >= 1


@pytest.mark.parametrize("every_ms", [1_000, 30_000, 3_600_000])
def test_a_worker_remembers_a_few_slots(every_ms: int) -> None:
    assert keep_ms(every_ms) == 3 * every_ms
