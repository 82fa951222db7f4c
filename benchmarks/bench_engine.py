"""Engine benchmark: conv_tasks traversals against a bare Celery task chain, in one run.

Starts its own worker processes (solo pool, so each process's statement
counter and peak memory can be read with `celery inspect conv_stats`) on a
benchmark database, then measures:

- baseline: a bare Celery task relaying a token N times on the same broker;
- stacks of OS::Heat::None resources as a chain, a fan-out/fan-in and a random DAG.

For each: seconds, nodes (update + clean-up), per-node time as a ratio to one
bare task hop, SQL statements per node, and the workers' peak memory.

    python benchmarks/bench_engine.py [--sizes 100,1000,10000] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from conv_tasks.celery_processes import CeleryProcesses

ROOT = Path(__file__).resolve().parent.parent
BENCH_ENV = {
    "CONV_TASKS_DATABASE_URL": "postgresql+psycopg2://postgres@127.0.0.1:5432/conv_tasks_bench",
    "CONV_TASKS_BROKER_URL": "redis://127.0.0.1:6379/10",
    "CONV_TASKS_REDIS_URL": "redis://127.0.0.1:6379/11",
    "CONV_TASKS_RESULT_BACKEND": "redis://127.0.0.1:6379/11",
    "CONV_TASKS_REDIS_PREFIX": "bench",
}
os.environ.update(BENCH_ENV)


def _chain(n: int) -> dict[str, Any]:
    res = {"r0": {"type": "OS::Heat::None"}}
    for i in range(1, n):
        res[f"r{i}"] = {"type": "OS::Heat::None", "depends_on": [f"r{i - 1}"]}
    return res


def _fan(n: int) -> dict[str, Any]:
    res: dict[str, Any] = {"root": {"type": "OS::Heat::None"}}
    middle = [f"m{i}" for i in range(max(1, n - 2))]
    for name in middle:
        res[name] = {"type": "OS::Heat::None", "depends_on": ["root"]}
    res["sink"] = {"type": "OS::Heat::None", "depends_on": middle}
    return res


def _random_dag(n: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    res: dict[str, Any] = {}
    for i in range(n):
        deps = sorted({f"r{rng.randrange(i)}" for _ in range(min(i, 3))}) if i else []
        res[f"r{i}"] = {"type": "OS::Heat::None", **({"depends_on": deps} if deps else {})}
    return res


SHAPES = {"chain": _chain, "fan": _fan, "random": _random_dag}


def _stats(app: Any) -> tuple[int, int]:
    answers = app.control.broadcast("conv_stats", reply=True, timeout=5.0) or []
    replies = [reply for answer in answers for reply in answer.values()]
    statements = sum(r["sql_statements"] for r in replies)
    memory = max((r["max_rss_kb"] for r in replies), default=0)
    return statements, memory


def _baseline(app: Any, hops: int) -> float:
    from conv_tasks.redis_client import get_redis

    key = f"bench:relay:{uuid.uuid4().hex}"
    start = time.perf_counter()
    app.send_task("conv_tasks.health.relay", kwargs={"remaining": hops, "done_key": key})
    while not get_redis().exists(key):
        time.sleep(0.005)
    return (time.perf_counter() - start) / hops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shapes", default="chain,fan,random")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()

    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from conv_tasks.db.migrate import upgrade

    url = make_url(BENCH_ENV["CONV_TASKS_DATABASE_URL"])
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{url.database}"'))
    admin.dispose()
    upgrade(BENCH_ENV["CONV_TASKS_DATABASE_URL"])
    import redis

    for db in (10, 11):
        redis.Redis(db=db).flushdb()

    procs = CeleryProcesses(Path(tempfile.gettempdir()) / "conv-tasks-bench", env=BENCH_ENV)
    for i in range(args.workers):
        procs.start_worker(f"bench{i}", pool="solo", loglevel="WARNING")
    try:
        from conv_tasks.client import Client
        from conv_tasks.tasks.app import app

        procs.wait_ready()
        _baseline(app, 50)  # warm up
        hop = _baseline(app, 2000)
        print(f"baseline: bare Celery task hop {hop * 1000:.2f} ms (2000-hop relay, same broker)")
        print(
            f"{'shape':<8}{'size':>7}{'nodes':>8}{'seconds':>10}{'ms/node':>9}"
            f"{'x bare':>8}{'SQL/node':>10}{'peak MB':>9}"
        )
        client = Client(tenant="bench", timeout=600)
        for size in [int(s) for s in args.sizes.split(",")]:
            for shape in args.shapes.split(","):
                tmpl = {"heat_template_version": "2018-08-31", "resources": SHAPES[shape](size)}
                before, _ = _stats(app)
                start = time.perf_counter()
                result = client.create(f"{shape}-{size}", tmpl)
                final = client.wait(result["stack_id"], timeout=args.timeout, interval=0.2)
                seconds = time.perf_counter() - start
                after, memory = _stats(app)
                nodes = 2 * size
                per_node = seconds / nodes
                print(
                    f"{shape:<8}{size:>7}{nodes:>8}{seconds:>10.2f}{per_node * 1000:>9.2f}"
                    f"{per_node / hop:>8.1f}{(after - before) / nodes:>10.1f}"
                    f"{memory / 1024:>9.0f}  {final['status']}",
                    flush=True,
                )
                client.delete(result["stack_id"])
                client.wait(result["stack_id"], timeout=args.timeout, interval=0.2)
    finally:
        procs.stop_all(timeout=30)


if __name__ == "__main__":
    main()
