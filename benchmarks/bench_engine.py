"""Engine benchmark: conv_tasks traversals against a bare Celery hop on the same broker, in one run.

    python benchmarks/bench_engine.py [--sizes 100,1000,10000] [--count-sizes 100,1000]
                                      [--workers 2] [--json out.json]

Everything it uses is its own: a private redis-server on a free port (broker,
SyncPoints and results in three of its databases, stopped at the end) and the
`conv_tasks_bench` database, dropped, recreated and migrated. It never
flushes or restarts a shared service. Two passes:

- timing (no proxies): the bare Celery app (benchmarks/bare_app.py) relays a
  no-op task and fans in, on workers of the same number and pool as
  conv_tasks'; then chain, 1 -> N -> 1 fan and random DAG stacks of
  OS::Heat::None at each size through create, update (every resource in
  place) and delete. Each as ms per resource and as a multiple of the bare hop.
- counting (one solo worker behind TCP proxies, benchmarks/proxies.py): per
  resource, SQL statements, PostgreSQL round trips, transactions, Redis round
  trips to the broker, the SyncPoints and the results, Celery messages; with
  task events off and on. The bare hop is counted first, to validate the
  method (about 4 broker round trips per hop).

It only reports; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.config import DEFAULT_DATABASE_URL, EVENT_MODES, Config, Stage
from benchmarks.services import ROOT, PrivateRedis, recreate_database
from benchmarks.shapes import SHAPES


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def _words(text: str, allowed: Any) -> tuple[str, ...]:
    words = tuple(part.strip() for part in text.split(",") if part.strip())
    for word in words:
        if word not in allowed:
            raise SystemExit(f"unknown {word!r}: choose from {', '.join(allowed)}")
    return words


def parse_args(argv: list[str] | None = None) -> tuple[Config, Path | None, set[str]]:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="timing pass sizes")
    parser.add_argument("--shapes", default="chain,fan,random")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (timing)")
    parser.add_argument("--pool", default="solo", help="Celery pool of every worker (timing)")
    parser.add_argument("--concurrency", type=int, default=1, help="per worker (timing)")
    parser.add_argument("--hops", type=int, default=2000, help="bare relay length (timing)")
    parser.add_argument(
        "--task-events", default="on", choices=sorted(EVENT_MODES), help="timing pass"
    )
    parser.add_argument("--count-sizes", default="100,1000", help="counting pass sizes")
    parser.add_argument("--count-events", default="off,on", help="counting passes: off,on,sent")
    parser.add_argument("--count-hops", type=int, default=500, help="bare relay (counting)")
    parser.add_argument("--passes", default="timing,counting")
    parser.add_argument("--timeout", type=float, default=3600.0, help="per operation, seconds")
    parser.add_argument("--settle", type=float, default=0.5, help="seconds after an operation")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    cfg = Config(
        sizes=_ints(args.sizes),
        shapes=_words(args.shapes, SHAPES),
        workers=args.workers,
        pool=args.pool,
        concurrency=args.concurrency,
        hops=args.hops,
        task_events=args.task_events,
        count_sizes=_ints(args.count_sizes),
        count_modes=_words(args.count_events, EVENT_MODES),
        count_hops=args.count_hops,
        timeout=args.timeout,
        settle=args.settle,
        database_url=args.database_url,
    )
    return cfg, args.json, set(_words(args.passes, ("timing", "counting")))


def _versions() -> dict[str, str]:
    import celery
    import kombu
    import redis

    return {
        "python": platform.python_version(),
        "celery": celery.__version__,
        "kombu": kombu.__version__,
        "redis-py": redis.__version__,
        "cpus": str(os.cpu_count()),
        "conv_tasks": _engine_revision(),
    }


def _git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if done.returncode:
        raise OSError(done.stderr.strip())
    return done.stdout.strip()


def _engine_revision() -> str:
    """The commit of the conv_tasks being measured, '+dirty' if its files differ from it."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--", "conv_tasks", "celeryconfig.py")
    except OSError:
        return "unknown (not a git checkout)"
    return head + ("+dirty" if dirty else "")


def main(argv: list[str] | None = None) -> None:
    cfg, json_path, passes = parse_args(argv)
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-bench-"))
    redis_server = PrivateRedis(workdir / "redis")
    redis_server.start()
    stage = Stage(redis_server, cfg.database_url, workdir / "logs")
    # The benchmark process talks to the same services directly (never through a proxy),
    # and conv_tasks reads its settings once: set them before it is imported.
    os.environ.update(stage.env(cfg.task_events))
    versions = _versions()
    print(f"measuring conv_tasks {versions['conv_tasks']} from {ROOT}", flush=True)
    print(f"private redis-server on port {redis_server.port}; logs in {workdir}", flush=True)
    started = time.time()
    results: dict[str, Any] = {"versions": versions, "config": asdict(cfg)}
    try:
        recreate_database(cfg.database_url)
        if "timing" in passes:
            from benchmarks.timing import timing_pass

            results["timing"] = timing_pass(cfg, stage)
        if "counting" in passes and cfg.count_sizes:
            from benchmarks.counting import counting_pass

            results["counting"] = counting_pass(cfg, stage)
    finally:
        redis_server.stop()
        results["seconds"] = time.time() - started
        if json_path is not None:
            report.write_json(json_path, results)
    print(f"\nengine benchmark finished in {results['seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
