"""Read latency while a large traversal runs: `conv_tasks.stack.list` during a stack create.

Requests and graph nodes travel on separate queues (docs/task-api.md, "Queues and
worker pools"), so a read should wait for a free pool slot, not for the traversal.
The benchmark process sends one `stack list` after another, each as soon as
the previous answered, from the moment the create request is sent until the
list shows the stack finished; each read is timed from send to answer.
"""

from __future__ import annotations

import time
from statistics import median, quantiles
from typing import Any

from benchmarks.services import StackWatcher
from benchmarks.shapes import template

IDLE_READS = 50


def _timed_list(client: Any) -> tuple[float, list[dict[str, Any]]]:
    start = time.perf_counter()
    rows = client.list()
    return (time.perf_counter() - start) * 1000, rows


def _summary(latencies_ms: list[float]) -> dict[str, Any]:
    cuts = quantiles(latencies_ms, n=100, method="inclusive") if len(latencies_ms) > 1 else []
    return {
        "reads": len(latencies_ms),
        "p50_ms": median(latencies_ms),
        "p99_ms": cuts[98] if cuts else latencies_ms[0],
        "max_ms": max(latencies_ms),
    }


def reads_during_create(
    client: Any, watcher: StackWatcher, shape: str, size: int, timeout: float
) -> dict[str, Any]:
    """Read latency idle, then during a `size`-resource create of `shape` (then deleted)."""
    idle = [_timed_list(client)[0] for _ in range(IDLE_READS)]
    name = f"reads-{shape}-{size}"
    busy: list[float] = []
    stack_id = str(client.create(name, template(shape, size, 1))["stack_id"])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ms, rows = _timed_list(client)
        busy.append(ms)
        status = next((row["status"] for row in rows if row["id"] == stack_id), "")
        if not status.endswith("IN_PROGRESS"):
            break
    status, _ = watcher.wait(stack_id, "CREATE", timeout)
    client.delete(stack_id)
    watcher.wait(stack_id, "DELETE", timeout)
    return {
        "shape": shape,
        "size": size,
        "status": status,
        "idle": _summary(idle),
        "during_create": _summary(busy),
    }
