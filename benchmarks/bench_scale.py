"""Scale benchmark: nodes/s against worker processes and shape, and the capacity model it checks.

    python benchmarks/bench_scale.py [--processes 1,2,4] [--shapes chain,fan] [--size 500]
                                     [--repeats 3] [--instructions chain=N,fan=N] [--json FILE]

Everything is its own: a PostgreSQL cluster (initdb on a free port, no fsync), a redis-server
for SyncPoints and results and another for the broker, all on free ports and stopped at the
end. In one run it measures:

1. what this machine sustains (benchmarks/scale_rates.py): PostgreSQL commits/s (pgbench),
   Redis commands/s (redis-benchmark), a tight Python loop's instructions/s;
2. worker instructions per node with callgrind (benchmarks/instructions_per_node.py: a
   callgrind'd solo worker, the difference of two stack sizes), unless --instructions gives
   them;
3. each shape's create on solo workers: as many are started as the most processes asked, and
   the others' consumers are cancelled (Celery's cancel_consumer) so that 1, 2 and 4 take
   turns while the machine's load drifts; nodes/s is the median of the repeats. First, at one
   process, what a node costs: PostgreSQL transactions (pg_stat_database), commands of each
   Redis (INFO commandstats), CPU seconds of the worker, PostgreSQL, both Redis and the
   benchmark (/proc); during every create, the cores that other work kept busy (/proc/stat).

Then it fits the model (benchmarks/capacity.py) and prints which resource limits first, the
predicted against the measured nodes/s, and what 1,000 and 10,000 nodes/s would need
(docs/operations/fleet-sizing.md). It only reports; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report, scale_rates, scale_report
from benchmarks.bench_engine import _engine_revision, _ints, _words
from benchmarks.capacity import PerNode, Rates, ShapeRun, fit
from benchmarks.config import EVENT_MODES, Stage
from benchmarks.scale_runs import Services, postmaster_pid, run_shapes
from benchmarks.services import PrivateRedis, recreate_database
from benchmarks.shapes import SHAPES

DATABASE = "conv_tasks_scale"
CALLGRIND_DATABASE = "conv_tasks_callgrind"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--processes", default="1,2,4", help="worker processes, 1 first")
    parser.add_argument("--shapes", default="chain,fan")
    parser.add_argument("--size", type=int, default=500, help="resources of each stack")
    parser.add_argument("--repeats", type=int, default=3, help="creates per shape and count")
    parser.add_argument("--callgrind-sizes", default="20,60", help="two sizes, smaller first")
    parser.add_argument(
        "--instructions",
        default="",
        help="SHAPE=N,...: worker instructions per node to use instead of counting them "
        "(as `make bench-instructions` printed them)",
    )
    parser.add_argument("--task-events", default="on", choices=sorted(EVENT_MODES))
    parser.add_argument("--timeout", type=float, default=600.0, help="per create, seconds")
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    args.processes = _ints(args.processes)
    args.shapes = _words(args.shapes, SHAPES)
    sizes = _ints(args.callgrind_sizes)
    if not args.processes or args.processes[0] != 1:
        parser.error("--processes must start with 1: the model is fitted to one process")
    if len(sizes) != 2 or not 0 < sizes[0] < sizes[1]:
        parser.error("--callgrind-sizes takes two sizes, the smaller first (such as 50,150)")
    if args.size < 3 or args.repeats < 1:
        parser.error("--size must be at least 3 and --repeats at least 1")
    args.callgrind_sizes = sizes
    given: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in args.instructions.split(","))):
        shape, _, value = part.partition("=")
        try:
            given[shape] = float(value)
        except ValueError:
            parser.error(f"--instructions: {part!r} is not SHAPE=NUMBER")
    if given and set(given) != set(args.shapes):
        parser.error(f"--instructions must give every shape of --shapes: {', '.join(args.shapes)}")
    args.instructions = given
    return args


def width(shape: str, size: int) -> int:
    """The most nodes a shape lets run at once: a chain one, a 1 -> N -> 1 fan N."""
    return {"chain": 1, "fan": max(1, size - 2)}.get(shape, size)


def check_tools(pg: Any, counting: bool) -> None:
    """Stop with one line naming what is missing, before anything starts."""
    needed = {"redis-benchmark": "redis-tools", "valgrind": "valgrind"}
    if counting:
        needed["callgrind_control"] = "valgrind"
    for tool, package in needed.items():
        if shutil.which(tool) is None:
            raise SystemExit(f"bench-scale needs {tool}: install Debian's {package} package")
    if not (pg.bin / "pgbench").exists():
        raise SystemExit(f"bench-scale needs pgbench beside initdb in {pg.bin}")


def measure_rates(pg: Any, redis_port: int) -> dict[str, Any]:
    print("measuring this machine: a core, PostgreSQL commits, Redis commands", flush=True)
    return {
        "core": scale_rates.core_instructions_per_s(),
        "postgres": scale_rates.pg_commits_per_s(pg.bin / "pgbench", pg.port),
        "redis": scale_rates.redis_commands_per_s(redis_port),
    }


def worker_instructions_per_s(instructions: dict[str, float], counted: dict[str, Any]) -> float:
    """What a core of this machine runs of the worker's own code: its instructions per node
    (callgrind: the difference of two sizes) over its CPU seconds per node (user + system from
    /proc: the difference of two sizes too) at one process, over every shape."""
    executed = sum(instructions.values())
    seconds = sum(counted[shape]["worker_marginal_cpu_seconds"] for shape in instructions)
    if seconds <= 0:
        raise RuntimeError("the worker used no CPU time per node in the counted creates")
    return executed / seconds


def count_instructions(args: argparse.Namespace, pg: Any) -> dict[str, float]:
    """Worker instructions per node of each shape, counted by callgrind in a process of its
    own (conv_tasks reads its settings once), on a database of the private cluster."""
    from benchmarks.instructions_per_node import count_shapes

    base, nodes = args.callgrind_sizes
    url = f"postgresql+psycopg://postgres@127.0.0.1:{pg.port}/{CALLGRIND_DATABASE}"
    print(f"counting worker instructions per node with callgrind ({base} and {nodes} resources)")
    return count_shapes(
        list(args.shapes), nodes, base=base, task_events=args.task_events, database_url=url
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from conv_tasks.testing import PrivatePostgres

    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-bench-scale-"))
    pg = PrivatePostgres(DATABASE)
    redis_server = PrivateRedis(workdir / "redis")
    broker = PrivateRedis(workdir / "broker")
    started = time.time()
    results: dict[str, Any] = {"revision": _engine_revision(), "args": vars(args)}
    try:
        check_tools(pg, counting=not args.instructions)
        pg.init()
        pg.start()
        redis_server.start()
        broker.start()
        stage = Stage(redis_server, pg.url, workdir / "logs")
        services = Services(stage, broker, DATABASE, postmaster_pid(pg.data))
        # conv_tasks reads its settings once: set them before it is imported.
        os.environ.update(services.env(args.task_events))
        print(
            f"measuring conv_tasks {results['revision']}; private PostgreSQL on port "
            f"{pg.port}, redis-servers on {redis_server.port} (SyncPoints, results) and "
            f"{broker.port} (broker); logs in {workdir}",
            flush=True,
        )
        recreate_database(pg.url)
        phase = time.time()
        results["rates"] = measure_rates(pg, redis_server.port)
        instructions = args.instructions or count_instructions(args, pg)
        results["instructions_per_node"] = instructions
        results["phase_seconds"] = {"rates_and_callgrind": time.time() - phase}
        phase = time.time()
        print(
            f"creating {args.size}-resource stacks at {args.processes} worker processes",
            flush=True,
        )
        runs = run_shapes(
            services, args.processes, args.shapes, args.size, repeats=args.repeats,
            events=args.task_events, timeout=args.timeout,
        )  # fmt: skip
        results["runs"] = runs
        results["phase_seconds"]["creates"] = time.time() - phase
        rates = Rates(
            cores=os.cpu_count() or 1,
            core_instructions_per_s=worker_instructions_per_s(instructions, runs["counted"]),
            pg_commits_per_s=results["rates"]["postgres"]["commits_per_s"],
            redis_commands_per_s=results["rates"]["redis"]["commands_per_s"],
        )
        models = []
        for shape in args.shapes:
            costs = runs["counted"][shape]
            cpu = costs["cpu_seconds"]
            per_node = PerNode(
                instructions=instructions[shape],
                pg_transactions=costs["pg_commits"] + costs["pg_rollbacks"],
                redis_commands=costs["redis_commands"],
                broker_commands=costs["broker_commands"],
                other_cpu_seconds=sum(cpu[k] for k in ("postgres", "redis", "broker", "benchmark")),
            )
            by_processes = runs["by_processes"]
            measured = {count: by_processes[count][shape]["nodes_per_s"] for count in by_processes}
            run = ShapeRun(shape, width(shape, args.size), per_node, measured, runs["other_cores"])
            models.append(fit(rates, run))
        scale_report.print_rates(rates, results["rates"])
        scale_report.print_costs(models, runs, args.size)
        scale_report.print_model(models, args.processes, runs)
        scale_report.print_honesty(rates.cores, args.processes)
        results["fleet"] = scale_report.print_fleet(models, rates)
        results["predictions"] = {
            m.run.shape: [m.predict(count) for count in args.processes] for m in models
        }
    finally:
        redis_server.stop()
        broker.stop()
        pg.destroy()
        results["seconds"] = time.time() - started
        if args.json is not None:
            report.write_json(args.json, results)
    print(f"\nscale benchmark finished in {results['seconds']:.0f} s", flush=True)
    return results


if __name__ == "__main__":
    main()
