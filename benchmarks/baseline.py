"""Driving the bare Celery app (benchmarks/bare_app.py) and conv_tasks stacks from the benchmark.

Both ends are timed from the benchmark process: the bare tasks mark the end
by pushing to a Redis list the benchmark blocks on; a stack's operation ends
when its row says so (read directly, see StackWatcher).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

import redis

from benchmarks import bare_app
from benchmarks.services import StackWatcher
from benchmarks.shapes import template

OPERATIONS = ("create", "update", "delete")
_ACTIONS = {"create": "CREATE", "update": "UPDATE", "delete": "DELETE"}


def _wait_done(keys: redis.Redis, done_key: str, timeout: float) -> float:
    if keys.blpop([done_key], timeout=timeout) is None:
        raise TimeoutError(f"bare tasks did not finish within {timeout:.0f}s")
    return time.perf_counter()


def relay(keys: redis.Redis, hops: int, timeout: float = 600.0) -> float:
    """Seconds for a no-op task to be relayed `hops` times (each run sends the next)."""
    done_key = f"bench:bare:done:{uuid.uuid4().hex}"
    start = time.perf_counter()
    bare_app.app.send_task(bare_app.RELAY, kwargs={"remaining": hops, "done_key": done_key})
    return _wait_done(keys, done_key, timeout) - start


def fan_in(keys: redis.Redis, width: int, timeout: float = 600.0) -> float:
    """Seconds from sending a root that publishes `width` no-op leaves to the sink running."""
    token = uuid.uuid4().hex
    done_key, counter_key = f"bench:bare:done:{token}", f"bench:bare:count:{token}"
    start = time.perf_counter()
    bare_app.app.send_task(
        bare_app.FAN_ROOT,
        kwargs={"width": width, "counter_key": counter_key, "done_key": done_key},
    )
    seconds = _wait_done(keys, done_key, timeout) - start
    keys.delete(counter_key)
    return seconds


def resource_count(shape: str, size: int) -> int:
    return len(template(shape, size, 1)["resources"])


@dataclass(frozen=True)
class Operation:
    """One timed stack operation."""

    shape: str
    size: int
    operation: str
    resources: int
    seconds: float
    status: str


def run_operation(
    client: Any,
    watcher: StackWatcher,
    shape: str,
    size: int,
    operation: str,
    stack: str,
    timeout: float,
) -> tuple[str, Operation]:
    """Create (`stack` is a name), update every resource in place, or delete (`stack` is the id).

    Timed from sending the request to the stack row showing the operation
    finished. Returns the stack id and the measurement.
    """
    start = time.perf_counter()
    if operation == "create":
        stack = str(client.create(stack, template(shape, size, 1))["stack_id"])
    elif operation == "update":
        client.update(stack, template(shape, size, 2))
    elif operation == "delete":
        client.delete(stack)
    else:
        raise ValueError(f"unknown operation {operation!r}")
    status, end = watcher.wait(stack, _ACTIONS[operation], timeout)
    measured = Operation(shape, size, operation, resource_count(shape, size), end - start, status)
    return stack, measured
