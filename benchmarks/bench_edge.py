"""Edge benchmark: `stack show` and `stack list` through the HTTP edge, beside the same reads
sent with `send_task` (conv_tasks.client), idle and while a 1,000-resource stack is created.

    python benchmarks/bench_edge.py [--reads 200] [--size 1000] [--workers 2] [--json out.json]

Everything it uses is its own: a private redis-server on a free port (broker, SyncPoints,
results), the `conv_tasks_bench_edge` database (dropped, recreated, migrated), conv_tasks
workers, and `conv-tasks api serve` (noauth, loopback) on a free port. Each read kind is
timed alone, one request after the other from one client (httpx with keep-alive for the
edge; one Client for the tasks): p50 and p99 in milliseconds. During the create the four
kinds take turns until the stack is complete or every kind has `--reads` samples. It only
reports; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.config import Stage  # noqa: E402
from benchmarks.services import (  # noqa: E402
    PrivateRedis,
    StackWatcher,
    Workers,
    free_port,
    recreate_database,
)

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_bench_edge"
TENANT = "bench-edge"
KINDS = ("show via edge", "show via send_task", "list via edge", "list via send_task")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reads", type=int, default=200, help="samples of each read kind")
    parser.add_argument("--size", type=int, default=1000, help="resources of the busy stack")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--concurrency", type=int, default=2, help="per worker")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    return parser.parse_args(argv)


def template(size: int) -> dict[str, Any]:
    resources = {f"r{i}": {"type": "OS::Heat::None"} for i in range(size)}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"n": len(ordered), "p50_ms": statistics.median(ordered), "p99_ms": p99}


def timed(read: Callable[[], Any]) -> float:
    begun = time.perf_counter()
    read()
    return (time.perf_counter() - begun) * 1000


def start_edge(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    import httpx

    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from conv_tasks.cli.main import main; main()",
             "api", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env={**os.environ, **env, "CONV_TASKS_API_AUTH": "noauth"},
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the edge exited; see {log}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthcheck", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the edge did not answer; see {log}")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-bench-edge-"))
    redis_server = PrivateRedis(workdir / "redis")
    redis_server.start()
    results: dict[str, Any] = {"config": vars(args) | {"json": str(args.json)}}
    workers: Workers | None = None
    edge: subprocess.Popen[bytes] | None = None
    watcher: StackWatcher | None = None
    try:
        stage = Stage(redis_server, args.database_url, workdir / "logs")
        env = {**stage.env("off"), "CONV_TASKS_REDIS_PREFIX": "bench-edge"}
        os.environ.update(env)  # conv_tasks reads its settings once: before it is imported
        recreate_database(args.database_url)
        import httpx

        from conv_tasks.client import Client
        from conv_tasks.tasks.app import app

        workers = Workers("conv_tasks.tasks.app", env, stage.log_dir, "edge")
        workers.start(args.workers, pool="prefork", concurrency=args.concurrency)
        workers.wait_ready(app)
        port = free_port()
        edge = start_edge(env, port, stage.log_dir / "edge.log")
        base = f"http://127.0.0.1:{port}/v1/{TENANT}"
        client = Client(tenant=TENANT, timeout=60)
        watcher = StackWatcher(args.database_url)
        probe = client.create("probe", template(10))["stack_id"]
        watcher.wait(probe, "CREATE", 120)
        http = httpx.Client(timeout=60)
        reads: dict[str, Callable[[], Any]] = {
            "show via edge": lambda: http.get(f"{base}/stacks/probe/{probe}").raise_for_status(),
            "show via send_task": lambda: client.get(probe),
            "list via edge": lambda: http.get(f"{base}/stacks").raise_for_status(),
            "list via send_task": lambda: client.list(),
        }
        for read in reads.values():  # warm both paths up
            for _ in range(10):
                read()
        idle = {kind: [timed(reads[kind]) for _ in range(args.reads)] for kind in KINDS}
        busy: dict[str, list[float]] = {kind: [] for kind in KINDS}
        begun = time.perf_counter()
        big = client.create("busy", template(args.size))["stack_id"]
        while min(len(v) for v in busy.values()) < args.reads:
            if client.get(big)["status"] != "CREATE_IN_PROGRESS":
                break
            for kind in KINDS:
                busy[kind].append(timed(reads[kind]))
        status, done = watcher.wait(big, "CREATE", 1800)
        results["busy_stack"] = {"status": status, "create_s": done - begun}
        results["idle"] = {kind: percentiles(v) for kind, v in idle.items()}
        results["busy"] = {kind: percentiles(v) for kind, v in busy.items() if v}
        print(f"\n{'read':<22} {'idle p50':>9} {'idle p99':>9} {'busy p50':>9} {'busy p99':>9} "
              f"{'busy n':>7}")  # fmt: skip
        for kind in KINDS:
            i, b = results["idle"][kind], results["busy"].get(kind)
            busy_cols = (
                f"{b['p50_ms']:>9.1f} {b['p99_ms']:>9.1f} {b['n']:>7}" if b else "        -" * 3
            )
            print(f"{kind:<22} {i['p50_ms']:>9.1f} {i['p99_ms']:>9.1f} {busy_cols}")
        print(
            f"(ms; the busy stack of {args.size} resources ended {status} in "
            f"{results['busy_stack']['create_s']:.1f} s)"
        )
        http.close()
    finally:
        if watcher is not None:
            watcher.close()
        if edge is not None:
            edge.terminate()
            edge.wait(timeout=15)
        if workers is not None:
            workers.stop()
        redis_server.stop()
        if args.json is not None:
            args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
