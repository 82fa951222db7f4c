"""Creating the SyncPoints of a large traversal is pipelined: 10,000 nodes well under a second."""

from __future__ import annotations

import time

from conv_tasks.syncpoint import SyncPointStore

NODES = 10_000


def test_create_ten_thousand_nodes_quickly(store: SyncPointStore) -> None:
    waits = {f"n{i}": [f"n{i - 1}", f"n{i - 2}"] if i > 1 else ["start"] for i in range(NODES)}
    started = time.perf_counter()
    store.create("big", waits)
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, f"creating {NODES} SyncPoints took {elapsed:.2f}s"
    assert store.waiting_for("big", "n0") == frozenset({"start"})
    assert store.waiting_for("big", f"n{NODES - 1}") == frozenset(
        {f"n{NODES - 2}", f"n{NODES - 3}"}
    )
    assert store.drop("big") == NODES
