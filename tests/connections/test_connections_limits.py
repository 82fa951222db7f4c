"""Rate limits in the real Redis: steps per second from a bucket, actions in flight as leases
that a holder renews, an end gives back and a dead holder's runs out."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from conv_tasks.connections import RateLimiter


@pytest.fixture
def limiter(redis_client: Any) -> RateLimiter:
    return RateLimiter(redis_client, prefix=f"limits-{uuid.uuid4().hex[:8]}", lease=0.5)


def test_steps_per_second_come_from_a_bucket(limiter: RateLimiter) -> None:
    waits = [limiter.take_step("acme:api", 2.0) for _ in range(3)]
    assert waits[:2] == [0.0, 0.0]  # a burst of two
    assert 0 < waits[2] <= 0.5  # the third waits for the next token
    assert limiter.take_step("other:api", 2.0) == 0.0  # each connection has its own bucket


def test_actions_in_flight_are_held_renewed_and_given_back(limiter: RateLimiter) -> None:
    assert limiter.hold("acme:db", "a", 2)
    assert limiter.hold("acme:db", "b", 2)
    assert not limiter.hold("acme:db", "c", 2)  # full
    assert limiter.hold("acme:db", "a", 2)  # a holder renews its lease
    limiter.let_go("acme:db", "a")
    assert limiter.hold("acme:db", "c", 2)


def test_a_dead_holder_s_lease_runs_out(limiter: RateLimiter) -> None:
    assert limiter.hold("acme:db", "dead", 1)
    assert not limiter.hold("acme:db", "next", 1)
    time.sleep(0.7)  # longer than the lease: the holder never renewed it
    assert limiter.hold("acme:db", "next", 1)
