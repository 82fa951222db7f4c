"""Many processes finish the predecessors of one node at once, with redeliveries.

Each predecessor finishes 1-3 times, in a shuffled order spread over several
processes that start together. The node is triggered first by exactly one
call, with every predecessor's output; after that only repeats of that same
predecessor trigger it again (its first trigger may have been lost), and no
other predecessor ever does.
"""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter
from typing import Any

import pytest
import redis
from graphs import points

from conv_tasks.syncpoint import FinishOutcome, SyncPointStore

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
    seen: list[tuple[str, str, dict[str, Any] | None]] = []
    barrier.wait(timeout=60)
    for pred in calls:
        result = store.finish(TRAVERSAL, pred, _data(pred))
        data = dict(result.triggered).get(NODE)
        seen.append((pred, str(result.outcome), dict(data) if data is not None else None))
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
    store.create(TRAVERSAL, points({pred: [NODE] for pred in preds}))

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

    outcomes = Counter(outcome for _, outcome, _ in seen)
    assert outcomes[FinishOutcome.OK] == PREDECESSORS
    assert outcomes[FinishOutcome.REPEAT] == len(calls) - PREDECESSORS

    triggers = [(pred, data) for pred, _, data in seen if data is not None]
    completer = triggers[0][0] if triggers else None
    expected = {pred: _data(pred) for pred in preds}
    # Only one predecessor ever triggers the node, with everyone's output, on its first call
    # and on each of its repeats.
    assert {pred for pred, _ in triggers} == {completer}
    assert all(data == expected for _, data in triggers)
    assert len(triggers) == Counter(calls)[completer]

    assert store.waiting_for(TRAVERSAL, NODE) == frozenset()
    assert store.data(TRAVERSAL, NODE) == expected
    client.close()
