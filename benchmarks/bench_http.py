"""HTTP benchmark: how many ConvTasks::HTTP::Resource objects a second a stack creates against a
local json-server, with and without a rate limit on its connection.

    python benchmarks/bench_http.py [--sizes 100,300] [--limits none,per_second=20,in_flight=2]
                                    [--workers 2] [--pool prefork] [--concurrency 2]
                                    [--json out.json]

Everything it uses is its own: a private redis-server on a free port (broker, SyncPoints,
results, rate limits), the `conv_tasks_bench_http` database (dropped, recreated, migrated),
json-server 0.17.4 from tools/json-server (`make setup`) on a free port with a fresh db
file, and conv_tasks workers whose CONV_TASKS_CONNECTIONS has one http connection per limit
(a bearer token from a file, as in production). For each limit and size, a stack of that
many independent resources is created, then deleted: the time from the request to the
stack's COMPLETE, read from its row, and the objects json-server holds after each. It only
reports; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# json-server is started the way the HTTP resource's tests start it.
sys.path.insert(0, str(ROOT / "tests" / "integration" / "http_resource"))

from rest_server import JsonServer  # noqa: E402

from benchmarks.config import Stage  # noqa: E402
from benchmarks.services import PrivateRedis, StackWatcher, Workers, recreate_database  # noqa: E402

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_bench_http"
COLLECTION = "bench"
TOKEN = "bench-token-not-a-secret"


def _limit(text: str) -> dict[str, float]:
    """`none`, `per_second=20`, `in_flight=4`, or both joined with `+`."""
    if text == "none":
        return {}
    limit: dict[str, float] = {}
    for part in text.split("+"):
        key, _, value = part.partition("=")
        if key not in ("per_second", "in_flight") or not value:
            raise SystemExit(f"unknown limit {text!r}: none, per_second=N, in_flight=N")
        limit[key] = int(value) if key == "in_flight" else float(value)
    return limit


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sizes", default="100,300", help="resources per stack")
    parser.add_argument("--limits", default="none,per_second=20,in_flight=2")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--pool", default="prefork", help="Celery pool of every worker")
    parser.add_argument("--concurrency", type=int, default=2, help="per worker")
    parser.add_argument("--timeout", type=float, default=1800.0, help="per operation, seconds")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    return parser.parse_args(argv)


def connections_file(workdir: Path, base_url: str, limits: list[str]) -> Path:
    """One connection per limit, named after it."""
    import yaml

    token_file = workdir / "token"
    token_file.write_text(TOKEN + "\n")
    connections: dict[str, Any] = {}
    for text in limits:
        spec: dict[str, Any] = {
            "kind": "http",
            "base_url": base_url,
            "bearer_token_file": str(token_file),
        }
        if _limit(text):
            spec["rate_limit"] = _limit(text)
        connections[_name(text)] = spec
    path = workdir / "connections.yaml"
    path.write_text(yaml.safe_dump({"default": connections}))
    return path


def _name(limit: str) -> str:
    return "rest-" + limit.replace("=", "-").replace("+", "-").replace(".", "_")


def _template(size: int, connection: str, tag: str) -> dict[str, Any]:
    resources = {
        f"r{i}": {
            "type": "ConvTasks::HTTP::Resource",
            "properties": {
                "connection": connection,
                "url": COLLECTION,
                "body": {"name": f"{tag}-{i}", "size": i},
            },
        }
        for i in range(size)
    }
    return {"heat_template_version": "2018-08-31", "resources": resources}


def run(
    client: Any, watcher: StackWatcher, server: JsonServer, size: int, limit: str, timeout: float
) -> dict[str, Any]:
    """Create, then delete, a stack of `size` resources through the connection of `limit`."""
    tag = f"{_name(limit)}-{size}"
    begun = time.perf_counter()
    stack_id = client.create(tag, _template(size, _name(limit), tag))["stack_id"]
    status, done = watcher.wait(stack_id, "CREATE", timeout)
    create_s = done - begun
    made = len([o for o in server.objects(COLLECTION) if str(o.get("name", "")).startswith(tag)])
    begun = time.perf_counter()
    client.delete(stack_id)
    deleted, done = watcher.wait(stack_id, "DELETE", timeout)
    delete_s = done - begun
    left = len(server.objects(COLLECTION))
    return {
        "limit": limit,
        "resources": size,
        "create_status": status,
        "create_s": create_s,
        "created_per_s": size / create_s,
        "objects_after_create": made,
        "delete_status": deleted,
        "delete_s": delete_s,
        "deleted_per_s": size / delete_s,
        "objects_after_delete": left,
    }


def _print_row(row: dict[str, Any]) -> None:
    print(
        f"{row['limit']:<28} {row['resources']:>6} {row['create_s']:>9.2f} "
        f"{row['created_per_s']:>10.1f} {row['delete_s']:>9.2f} {row['deleted_per_s']:>10.1f}   "
        f"{row['create_status']}/{row['delete_status']}, server held "
        f"{row['objects_after_create']} then {row['objects_after_delete']}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    limits = [part.strip() for part in args.limits.split(",") if part.strip()]
    for text in limits:
        _limit(text)
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-bench-http-"))
    redis_server = PrivateRedis(workdir / "redis")
    server = JsonServer([COLLECTION])
    results: dict[str, Any] = {"config": vars(args) | {"json": str(args.json)}, "runs": []}
    started = time.time()
    redis_server.start()
    workers: Workers | None = None
    watcher: StackWatcher | None = None
    try:
        server.start()
        stage = Stage(redis_server, args.database_url, workdir / "logs")
        env = {
            **stage.env("off"),
            "CONV_TASKS_REDIS_PREFIX": "bench-http",
            "CONV_TASKS_CONNECTIONS": str(connections_file(workdir, server.base_url, limits)),
        }
        # conv_tasks reads its settings once: set them before it is imported.
        os.environ.update(env)
        recreate_database(args.database_url)
        from conv_tasks.client import Client
        from conv_tasks.tasks.app import app

        print(f"json-server on {server.base_url}; logs in {workdir}", flush=True)
        print(
            f"{args.workers} workers ({args.pool}, concurrency {args.concurrency}); task events "
            "off",
            flush=True,
        )
        workers = Workers("conv_tasks.tasks.app", env, stage.log_dir, "http")
        workers.start(args.workers, pool=args.pool, concurrency=args.concurrency)
        workers.wait_ready(app)
        client = Client(tenant="bench-http", timeout=120)
        watcher = StackWatcher(args.database_url)
        run(client, watcher, server, 10, limits[0], args.timeout)  # warm up
        print(
            f"\n{'connection rate limit':<28} {'size':>6} {'create s':>9} {'created/s':>10} "
            f"{'delete s':>9} {'deleted/s':>10}",
            flush=True,
        )
        for limit in limits:
            for size in sizes:
                row = run(client, watcher, server, size, limit, args.timeout)
                results["runs"].append(row)
                _print_row(row)
    finally:
        if watcher is not None:
            watcher.close()
        if workers is not None:
            workers.stop()
        server.stop()
        redis_server.stop()
        results["seconds"] = time.time() - started
        if args.json is not None:
            args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nHTTP benchmark finished in {results['seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
