"""Creating the SyncPoints of a large traversal is pipelined; one finish settles a long chain."""

from __future__ import annotations

from typing import Any

import redis
from graphs import points

from conv_tasks.syncpoint import SyncPointStore

NODES = 10_000


class CountingPipelines:
    """Counts how many pipelines a client sends (each is one round trip)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.executed = 0

    def pipeline(self, *args: Any, **kwargs: Any) -> Any:
        pipe = self.client.pipeline(*args, **kwargs)
        execute = pipe.execute

        def counted(*a: Any, **k: Any) -> Any:
            self.executed += 1
            return execute(*a, **k)

        pipe.execute = counted  # type: ignore[method-assign]
        return pipe

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def test_ten_thousand_points_in_few_round_trips(redis_client: redis.Redis, prefix: str) -> None:
    counting = CountingPipelines(redis_client)
    store = SyncPointStore(counting, prefix=prefix)  # type: ignore[arg-type]
    chain = {f"n{i}": [f"n{i + 1}", f"n{i + 2}"] for i in range(NODES - 2)}
    chain[f"n{NODES - 2}"] = [f"n{NODES - 1}"]
    store.create("big", points(chain))
    assert counting.executed == (NODES + 1 + 999) // 1000
    assert store.waiting_for("big", "n0") == frozenset()
    assert store.waiting_for("big", f"n{NODES - 1}") == frozenset(
        {f"n{NODES - 2}", f"n{NODES - 3}"}
    )
    assert store.drop("big") == NODES + 1


def test_one_finish_settles_a_ten_thousand_node_chain(store: SyncPointStore) -> None:
    # The clean-up half of a chain: each waits for its own update and the clean-up after it.
    succ: dict[str, list[str]] = {}
    for i in range(NODES):
        succ[f"u{i}"] = [f"c{i}"] + ([f"u{i + 1}"] if i + 1 < NODES else [])
        if i:
            succ[f"c{i}"] = [f"c{i - 1}"]
    store.create("chain", points(succ))
    for i in range(NODES - 1):
        store.finish("chain", f"u{i}", {"ref": str(i)}, settled=[f"c{i}"])
    last = store.finish("chain", f"u{NODES - 1}", settled=[f"c{NODES - 1}"])
    assert last.triggered == ()
    assert last.stack_input == {"c0": {}}
