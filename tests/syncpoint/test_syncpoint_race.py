"""Many processes satisfy one SyncPoint at once, with redeliveries: it completes exactly once.

Each predecessor is sent 1-3 times, in a shuffled order spread over several
processes that start together. Exactly one call in all of them may see
"completed", it must carry every predecessor's data, and every other call is
"pending" or "duplicate".
"""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter
from typing import Any

import pytest
import redis

from conv_tasks.syncpoint import SyncPointStore

PREDECESSORS = 2000
PROCESSES = 6
SEEDS = (1, 2, 3)
TRAVERSAL = "race"
NODE = "join"


def _data(pred: str) -> dict[str, Any]:
    return {"physical_id": f"id-{pred}", "attrs": {"n": int(pred[1:])}}


def _worker(
    url: str,
    prefix: str,
    calls: list[str],
    barrier: Any,
    results: Any,
) -> None:
    client = redis.Redis.from_url(url)
    store = SyncPointStore(client, prefix=prefix)
    seen: list[tuple[str, str, str | None, bool, dict[str, Any] | None]] = []
    barrier.wait(timeout=60)
    for pred in calls:
        result = store.satisfy(TRAVERSAL, NODE, pred, _data(pred))
        data = dict(result.data) if result.data is not None else None
        seen.append((pred, result.outcome, result.completed_by, result.should_trigger(pred), data))
    results.put(seen)
    client.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_race_completes_exactly_once(redis_url: str, prefix: str, seed: int) -> None:
    rng = random.Random(seed)
    preds = [f"p{i}" for i in range(PREDECESSORS)]
    calls = [pred for pred in preds for _ in range(rng.randint(1, 3))]
    rng.shuffle(calls)
    assert len(calls) > PREDECESSORS  # duplicates are in the mix

    client = redis.Redis.from_url(redis_url)
    store = SyncPointStore(client, prefix=prefix)
    store.create(TRAVERSAL, {NODE: preds})

    # spawn, not fork: the test process may hold threads (Celery, connection pools) that a
    # forked child would inherit in a locked state.
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(PROCESSES)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(redis_url, prefix, calls[i::PROCESSES], barrier, results))
        for i in range(PROCESSES)
    ]
    for proc in procs:
        proc.start()
    seen = [call for _ in procs for call in results.get(timeout=120)]
    for proc in procs:
        proc.join(timeout=30)
        assert proc.exitcode == 0
    assert len(seen) == len(calls)

    outcomes = Counter(outcome for _, outcome, _, _, _ in seen)
    assert outcomes["completed"] == 1
    assert set(outcomes) <= {"completed", "pending", "duplicate"}
    # Each predecessor counted exactly once; every repeat is a duplicate.
    assert outcomes["completed"] + outcomes["pending"] == PREDECESSORS
    assert outcomes["duplicate"] == len(calls) - PREDECESSORS

    [winner] = [call for call in seen if call[1] == "completed"]
    completer = winner[0]
    expected = {pred: _data(pred) for pred in preds}
    assert winner[2] == completer
    assert winner[3] is True
    assert winner[4] == expected

    for pred, outcome, completed_by, trigger, data in seen:
        if outcome == "pending":
            assert (completed_by, trigger, data) == (None, False, None)
        elif outcome == "duplicate" and pred == completer:
            # Only after the point completed can the completer repeat itself.
            assert (completed_by, trigger, data) == (completer, True, expected)
        elif outcome == "duplicate":
            assert completed_by in (None, completer)
            assert (trigger, data) == (False, None)
    assert sum(1 for call in seen if call[3]) == Counter(calls)[completer]

    assert store.waiting_for(TRAVERSAL, NODE) == frozenset()
    assert store.data(TRAVERSAL, NODE) == expected
    client.close()
