"""Web view benchmark: the server's time to render a stack's page (1,000 and 10,000
resources) and the stacks list (10,000 stacks), through `conv-tasks api serve`.

    python benchmarks/bench_ui.py [--sizes 1000,10000] [--stacks 10000] [--reads 20]
                                  [--workers 2] [--json out.json]

Everything it uses is its own: a private redis-server on a free port (broker, SyncPoints,
results), the `conv_tasks_bench_ui` database (dropped, recreated, migrated), conv_tasks
workers, and the edge (noauth, loopback) on a free port. The stacks of `--sizes` resources
(OS::Heat::None) are created through the workers; the `--stacks` rows of the list are
written straight into the database (a few in FAILED, a few in progress), since only the list
reads them. Each page is fetched `--reads` times, one request after the other from one
keep-alive client, and the time until its last byte is reported (p50 and p99, ms) with its
size, beside what the public tasks it calls cost alone. It only reports; it asserts nothing.
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
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_edge import start_edge  # noqa: E402
from benchmarks.config import Stage  # noqa: E402
from benchmarks.services import (  # noqa: E402
    PrivateRedis,
    StackWatcher,
    Workers,
    free_port,
    recreate_database,
)

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_bench_ui"
TENANT = "bench-ui"
LIST_TENANT = "bench-ui-list"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="resources of each stack")
    parser.add_argument("--stacks", type=int, default=10000, help="stacks in the list")
    parser.add_argument("--reads", type=int, default=20, help="fetches of each page")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--concurrency", type=int, default=2, help="per worker")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    return parser.parse_args(argv)


def template(size: int) -> dict[str, Any]:
    resources: dict[str, Any] = {"r0": {"type": "OS::Heat::None"}}
    for i in range(1, size):
        # A wide graph with some depth: each resource after the first 100 waits for one.
        before = {"depends_on": [f"r{i - 100}"]} if i >= 100 else {}
        resources[f"r{i}"] = {"type": "OS::Heat::None", **before}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def measure(fetch: Callable[[], int], reads: int) -> dict[str, float]:
    fetch()  # warm: caches, connections
    samples: list[float] = []
    size = 0
    for _ in range(reads):
        begun = time.perf_counter()
        size = fetch()
        samples.append((time.perf_counter() - begun) * 1000)
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"n": reads, "p50_ms": statistics.median(ordered), "p99_ms": p99, "bytes": size}


def write_stacks(database_url: str, count: int) -> None:
    """`count` stack rows of LIST_TENANT, straight into the database."""
    from conv_tasks.db import Database, NewStack
    from conv_tasks.secrets_at_rest import PLAINTEXT

    db = Database(database_url, sealer=PLAINTEXT)
    with db.transaction() as tx:
        for n in range(count):
            status = "FAILED" if n % 97 == 0 else "IN_PROGRESS" if n % 89 == 0 else "COMPLETE"
            tx.stacks.add(
                NewStack(
                    id=str(uuid.uuid4()),
                    name=f"stack-{n:05d}",
                    tenant=LIST_TENANT,
                    action="CREATE",
                    status=status,
                    disable_rollback=False,
                    timeout_mins=60,
                    idempotency_key=None,
                    tags=("bench", f"group-{n % 10}"),
                )
            )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-bench-ui-"))
    redis_server = PrivateRedis(workdir / "redis")
    redis_server.start()
    results: dict[str, Any] = {"config": vars(args) | {"json": str(args.json)}, "pages": {}}
    workers: Workers | None = None
    edge: subprocess.Popen[bytes] | None = None
    watcher: StackWatcher | None = None
    try:
        stage = Stage(redis_server, args.database_url, workdir / "logs")
        env = {**stage.env("off"), "CONV_TASKS_REDIS_PREFIX": "bench-ui"}
        os.environ.update(env)  # conv_tasks reads its settings once: before it is imported
        recreate_database(args.database_url)
        import httpx

        from conv_tasks.client import Client
        from conv_tasks.tasks.app import app

        workers = Workers("conv_tasks.tasks.app", env, stage.log_dir, "ui")
        workers.start(args.workers, pool="prefork", concurrency=args.concurrency)
        workers.wait_ready(app)
        port = free_port()
        edge = start_edge(env, port, stage.log_dir / "edge.log")
        base = f"http://127.0.0.1:{port}"
        client = Client(tenant=TENANT, timeout=300)
        watcher = StackWatcher(args.database_url)
        http = httpx.Client(base_url=base, timeout=300)

        def page(path: str, **params: Any) -> Callable[[], int]:
            def fetch() -> int:
                answer = http.get(path, params=params)
                answer.raise_for_status()
                return len(answer.content)

            return fetch

        def task(name: str, tenant: str = TENANT, **kwargs: Any) -> Callable[[], int]:
            one = Client(tenant=tenant, timeout=300)

            def call() -> int:
                return len(json.dumps(one.call(name, **kwargs)))

            return call

        pages: dict[str, dict[str, float]] = results["pages"]
        for size in sizes:
            begun = time.perf_counter()
            made = client.create(f"stack-{size}", template(size))["stack_id"]
            status, _ = watcher.wait(made, "CREATE", 3600)
            results[f"create_{size}_s"] = {"status": status, "s": time.perf_counter() - begun}
            stack = f"/ui/stacks/{made}"
            pages[f"stack page, {size} resources"] = measure(page(stack, tenant=TENANT), args.reads)
            pages[f"  its graph fragment ({size})"] = measure(
                page(f"{stack}/graph", tenant=TENANT), args.reads
            )
            for label, name, kwargs in [
                ("resources", "conv_tasks.stack.resources", {"nested_depth": 1}),
                ("graph", "conv_tasks.stack.graph", {}),
                ("events, all", "conv_tasks.stack.events", {"after_id": 0}),
                # What the page asks for: the 100 it shows and one more.
                ("events, latest", "conv_tasks.stack.events", {"latest": 101}),
            ]:
                pages[f"  task {label} ({size})"] = measure(
                    task(name, stack=made, **kwargs), args.reads
                )
        write_stacks(args.database_url, args.stacks)
        pages[f"stacks list, {args.stacks} stacks"] = measure(
            page("/ui/", tenant=LIST_TENANT), args.reads
        )
        pages["  filtered: failed, tag"] = measure(
            page("/ui/", tenant=LIST_TENANT, status="FAILED", tag="group-3"), args.reads
        )
        pages["  task overview"] = measure(
            task("conv_tasks.stack.overview", tenant=LIST_TENANT, limit=50), args.reads
        )
        print(f"\n{'page':<36} {'p50 ms':>9} {'p99 ms':>9} {'bytes':>10}")
        for name, numbers in pages.items():
            print(
                f"{name:<36} {numbers['p50_ms']:>9.1f} {numbers['p99_ms']:>9.1f} "
                f"{int(numbers['bytes']):>10}"
            )
        for size in sizes:
            created = results[f"create_{size}_s"]
            print(f"(the {size}-resource stack: {created['status']} in {created['s']:.0f} s)")
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
