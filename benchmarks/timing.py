"""The timing pass: no proxies, as many workers as asked, wall-clock time only.

First the bare Celery app alone (relay hop, fan-in at each size), with the
same number and pool of workers; then conv_tasks' workers alone, walking
every shape at every size through create, update (every resource in place)
and delete.
"""

from __future__ import annotations

from dataclasses import asdict
from statistics import median
from typing import Any

from benchmarks import bare_app, report
from benchmarks.baseline import OPERATIONS, fan_in, relay, run_operation
from benchmarks.config import SYNCPOINT_DB, Config, Stage
from benchmarks.reads import reads_during_create
from benchmarks.services import StackWatcher, Workers

REPEATS = 3
READ_SIZE = 1000


def bare_baseline(cfg: Config, stage: Stage, sizes: tuple[int, ...]) -> dict[str, Any]:
    """The bare hop (median of a few relays) and the bare fan-in (median) at each size."""
    keys = stage.redis.client(SYNCPOINT_DB)
    workers = Workers("benchmarks.bare_app", stage.env(cfg.task_events), stage.log_dir, "bare")
    workers.start(cfg.workers, pool=cfg.pool, concurrency=cfg.concurrency)
    try:
        workers.wait_ready(bare_app.app)
        relay(keys, 50)  # warm up: connections, imports
        fan_in(keys, 50)
        hops_ms = [relay(keys, cfg.hops) * 1000 / cfg.hops for _ in range(REPEATS)]
        widths = {size: [fan_in(keys, size) for _ in range(REPEATS)] for size in sizes}
    finally:
        workers.stop()
    return {
        "hop_ms": median(hops_ms),
        "hop_ms_runs": hops_ms,
        "hops": cfg.hops,
        "fan_in_s": {size: median(runs) for size, runs in widths.items()},
        "fan_in_s_runs": widths,
    }


def timing_pass(cfg: Config, stage: Stage) -> dict[str, Any]:
    from conv_tasks.broker.options import TASK_QUEUE
    from conv_tasks.client import Client
    from conv_tasks.tasks.app import app

    bare = bare_baseline(cfg, stage, cfg.sizes)
    hop_ms = bare["hop_ms"]
    report.print_bare_timing(bare, cfg)

    workers = Workers("conv_tasks.tasks.app", stage.env(cfg.task_events), stage.log_dir, "conv")
    workers.start(cfg.workers, pool=cfg.pool, concurrency=cfg.concurrency)
    client = Client(tenant="bench-timing", timeout=cfg.timeout)
    watcher = StackWatcher(stage.database_url)
    runs: list[dict[str, Any]] = []
    rss: dict[int, list[float]] = {}
    try:
        workers.wait_ready(app)
        stack = "warm-up"
        for operation in OPERATIONS:  # warm up: connections, caches, imports
            stack, _ = run_operation(client, watcher, "chain", 10, operation, stack, cfg.timeout)
        report.print_timing_header()
        for size in cfg.sizes:
            for shape in cfg.shapes:
                stack = f"{shape}-{size}"
                for operation in OPERATIONS:
                    pushes = stage.redis.command_calls("lpush")
                    stack, op = run_operation(
                        client, watcher, shape, size, operation, stack, cfg.timeout
                    )
                    # Every LPUSH is one published task; one of them was the client's request.
                    tasks = stage.redis.command_calls("lpush") - pushes - 1
                    row = {
                        **asdict(op),
                        "ms_per_resource": op.seconds * 1000 / op.resources,
                        "x_bare_hop": op.seconds * 1000 / op.resources / hop_ms,
                        "tasks_published": tasks,
                    }
                    if shape == "fan" and operation == "create":
                        row["x_bare_fan_in"] = op.seconds / bare["fan_in_s"][size]
                    # The public API agrees (outside the timed interval).
                    row["api_status"] = client.wait(stack, timeout=120, interval=0.2)["status"]
                    runs.append(row)
                    report.print_timing_row(row)
            rss[size] = workers.rss_mb()
            report.print_rss(size, rss[size])
        # Reads while the largest traversal (at most 1,000 resources) runs on the same workers.
        read_size = min(max(cfg.sizes, default=READ_SIZE), READ_SIZE)
        reads = reads_during_create(client, watcher, "random", read_size, cfg.timeout)
        report.print_reads(reads, "the same workers")
        # Again with one more worker that takes requests only (docs/task-api.md: sizing two pools).
        requests = Workers("conv_tasks.tasks.app", stage.env(cfg.task_events), stage.log_dir, "req")
        requests.start(1, pool=cfg.pool, concurrency=cfg.concurrency, queues=TASK_QUEUE)
        try:
            requests.wait_ready(app)
            pooled = reads_during_create(client, watcher, "random", read_size, cfg.timeout)
        finally:
            requests.stop()
        report.print_reads(pooled, f"the same workers and a -Q {TASK_QUEUE} worker")
    finally:
        watcher.close()
        workers.stop()
    # Measured again once the engine is done: how much the machine drifted meanwhile.
    after = bare_baseline(cfg, stage, ())
    report.print_bare_drift(after)
    return {
        "workers": cfg.workers,
        "pool": cfg.pool,
        "concurrency": cfg.concurrency,
        "task_events": cfg.task_events,
        "bare": bare,
        "bare_after": after,
        "runs": runs,
        "rss_mb": rss,
        "reads": reads,
        "reads_with_request_pool": pooled,
    }
