"""Worker CPU instructions per graph node, counted with valgrind's callgrind.

    python benchmarks/instructions_per_node.py [--shapes chain,fan,bare-hop,bare-fan]
                                               [--sizes 50,150] [--task-events on]
                                               [--json out.json]

Time on a shared 2-core machine is noise; instructions are not. One
`celery worker --pool solo` runs under `valgrind --tool=callgrind` (the
bare Celery app of benchmarks/bare_app.py for the `bare-*` shapes, conv_tasks'
app for the others). For each shape and size the counters are zeroed
(`callgrind_control --zero`), the benchmark creates the stack (or sends the
bare relay / fan-in) and waits until it is done, then dumps them
(`callgrind_control --dump`). Instructions per node are the difference between
the two sizes divided by the difference of their resource (or hop) counts, so
what every operation costs once (the request, the stack's end, the idle loop
while settling) cancels out. The worker's own start-up is never counted. The
idle worker's rate (instructions per second with nothing to do) is printed
too: a run that takes longer also counts more of it.

Callgrind runs Python about 50 times slower: the default sizes are small (50
and 150 resources), and a run of every shape takes a few minutes. Each dump
stays in the run's directory (printed at the start); `callgrind_annotate FILE`
shows where the instructions went, by C function.

Shapes: `chain`, `fan` (1 -> N -> 1) and `random` are conv_tasks stacks of
OS::Heat::None (benchmarks/shapes.py), created; `bare-hop` is the bare no-op
task relayed N times, `bare-fan` the bare root -> N leaves -> sink. The ratio
of a conv_tasks shape to its bare counterpart is an instruction ratio.

Everything is the run's own: a private redis-server and the
`conv_tasks_callgrind` database (dropped and recreated), so it can run beside
`make bench`. Importable: `count_instructions(shape, nodes)` and
`count_shapes(shapes, nodes)` run this script in a subprocess (conv_tasks reads
its settings once per process) and return instructions per node.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.config import SYNCPOINT_DB, Stage
from benchmarks.services import ROOT, PrivateRedis, StackWatcher, recreate_database

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_callgrind"
ENGINE_SHAPES = ("chain", "fan", "random")
BARE_SHAPES = ("bare-hop", "bare-fan")
ALL_SHAPES = ENGINE_SHAPES + BARE_SHAPES
# A callgrind worker answers a ping slowly, and starts in a minute or two.
START_TIMEOUT = 600.0
SETTLE = 2.0  # seconds after an operation: the last acknowledgement and events land


@dataclass(frozen=True)
class Count:
    """Instructions of one shape at two sizes, and what they give per node."""

    shape: str
    sizes: tuple[int, int]
    units: tuple[int, int]  # resources (or bare hops / leaves) at each size
    instructions: tuple[int, int]
    tasks: tuple[int, int]  # tasks published during each operation (LPUSH to the broker)
    seconds: tuple[float, float]

    @property
    def per_node(self) -> float:
        """Instructions per resource (per hop or leaf for the bare shapes)."""
        return (self.instructions[1] - self.instructions[0]) / (self.units[1] - self.units[0])

    @property
    def tasks_per_node(self) -> float:
        return (self.tasks[1] - self.tasks[0]) / (self.units[1] - self.units[0])

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "per_node": self.per_node,
            "tasks_per_node": self.tasks_per_node,
        }


class CallgrindWorker:
    """One `celery worker --pool solo` under callgrind, whose counters we zero and dump."""

    def __init__(self, app: str, env: dict[str, str], workdir: Path, label: str) -> None:
        self.app = app
        self.env = {**os.environ, **env}
        self.workdir = workdir
        self.label = label
        self.proc: subprocess.Popen[bytes] | None = None
        self.dumps = 0

    @property
    def out_file(self) -> Path:
        return self.workdir / f"callgrind.{self.label}"

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        with open(self.workdir / f"{self.label}.log", "ab") as log:
            self.proc = subprocess.Popen(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out_file}",
                 # The venv's python, not a shim script: valgrind does not follow exec.
                 sys.executable, "-m", "celery", "-A", self.app, "worker",
                 "--loglevel", "WARNING", "--pool", "solo", "--concurrency", "1",
                 "--hostname", f"{self.label}@%h", "--without-gossip", "--without-mingle"],
                env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def wait_ready(self, control_app: Any, timeout: float = START_TIMEOUT) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            replies = control_app.control.ping(timeout=2.0) or []
            if any(next(iter(reply)).split("@")[0] == self.label for reply in replies):
                return
        raise RuntimeError(f"callgrind worker {self.label} did not start; see {self.workdir}")

    def _control(self, option: str) -> None:
        assert self.proc is not None
        subprocess.run(
            ["callgrind_control", option, str(self.proc.pid)],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def zero(self) -> None:
        self._control("--zero")

    def dump(self) -> tuple[int, Path]:
        """Dump the counters; the instructions since the last zero, and the dump's file."""
        assert self.proc is not None
        self._control("--dump")
        self.dumps += 1
        path = Path(f"{self.out_file}.{self.dumps}")
        for line in path.read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1]), path
        raise RuntimeError(f"no summary line in {path}")

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None


def _measure(worker: CallgrindWorker, stage: Stage, work: Any) -> tuple[int, int, float, Path]:
    """(instructions, tasks published, seconds, dump file) of `work()` in the worker."""
    pushes = stage.redis.command_calls("lpush")
    worker.zero()
    start = time.perf_counter()
    work()
    seconds = time.perf_counter() - start
    time.sleep(SETTLE)
    instructions, path = worker.dump()
    return instructions, stage.redis.command_calls("lpush") - pushes, seconds, path


IDLE_SECONDS = 10.0


def _idle_rate(worker: CallgrindWorker) -> float:
    """Instructions per second of the worker with nothing to do (its event loop, timers,
    heartbeats): the part of a longer run's difference that is time, not nodes."""
    worker.zero()
    time.sleep(IDLE_SECONDS)
    instructions, _ = worker.dump()
    rate = instructions / IDLE_SECONDS
    print(f"{worker.label} worker idle: {rate:,.0f} instructions/s", flush=True)
    return rate


def _count(
    shape: str,
    sizes: tuple[int, int],
    units: Any,
    measure: Any,
) -> Count:
    results = [measure(size) for size in sizes]
    count = Count(
        shape=shape,
        sizes=sizes,
        units=(units(sizes[0]), units(sizes[1])),
        instructions=(results[0][0], results[1][0]),
        tasks=(results[0][1], results[1][1]),
        seconds=(results[0][2], results[1][2]),
    )
    dumps = ", ".join(str(r[3].name) for r in results)
    print(
        f"{shape:<9}{count.per_node:>14,.0f}{count.tasks_per_node:>8.2f}"
        f"   {sizes[0]}: {count.instructions[0]:,} in {count.seconds[0]:.0f} s,"
        f" {sizes[1]}: {count.instructions[1]:,} in {count.seconds[1]:.0f} s ({dumps})",
        flush=True,
    )
    return count


def count_bare(stage: Stage, shapes: list[str], sizes: tuple[int, int]) -> list[Count]:
    from benchmarks import bare_app
    from benchmarks.baseline import fan_in, relay

    keys = stage.redis.client(SYNCPOINT_DB)
    worker = CallgrindWorker("benchmarks.bare_app", {}, stage.log_dir, "bare")
    worker.start()
    try:
        worker.wait_ready(bare_app.app)
        relay(keys, 5)  # warm up: connections, imports
        fan_in(keys, 5)
        _idle_rate(worker)
        counts = []
        for shape in shapes:
            if shape == "bare-hop":
                run = lambda size: _measure(worker, stage, lambda: relay(keys, size))  # noqa: E731
                counts.append(_count(shape, sizes, lambda size: size, run))
            else:
                run = lambda size: _measure(worker, stage, lambda: fan_in(keys, size))  # noqa: E731
                counts.append(_count(shape, sizes, lambda size: size, run))
        return counts
    finally:
        worker.stop()


def count_engine(stage: Stage, shapes: list[str], sizes: tuple[int, int]) -> list[Count]:
    from benchmarks.baseline import resource_count, run_operation
    from conv_tasks.client import Client
    from conv_tasks.tasks.app import app

    worker = CallgrindWorker("conv_tasks.tasks.app", {}, stage.log_dir, "conv")
    worker.start()
    client = Client(tenant="callgrind", timeout=START_TIMEOUT)
    watcher = StackWatcher(stage.database_url)
    try:
        worker.wait_ready(app)
        for shape in shapes:  # warm up: connections, imports, each shape's code paths
            run_operation(client, watcher, shape, 5, "create", f"warm-{shape}", START_TIMEOUT)
        _idle_rate(worker)
        counts = []
        for shape in shapes:

            def run(size: int, shape: str = shape) -> tuple[int, int, float, Path]:
                def create() -> None:
                    _, op = run_operation(
                        client, watcher, shape, size, "create", f"{shape}-{size}", START_TIMEOUT
                    )
                    if op.status != "CREATE_COMPLETE":
                        raise RuntimeError(f"{shape}-{size} ended {op.status}")

                return _measure(worker, stage, create)

            counts.append(_count(shape, sizes, lambda size, s=shape: resource_count(s, size), run))
        return counts
    finally:
        watcher.close()
        worker.stop()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--shapes", default="chain,fan,bare-hop,bare-fan")
    parser.add_argument("--sizes", default="50,150", help="two sizes, the smaller first")
    parser.add_argument("--task-events", default="on", choices=("on", "off", "sent"))
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    for shape in shapes:
        if shape not in ALL_SHAPES:
            parser.error(f"unknown shape {shape!r}: choose from {', '.join(ALL_SHAPES)}")
    sizes = tuple(int(s) for s in args.sizes.split(","))
    if len(sizes) != 2 or not 0 < sizes[0] < sizes[1]:
        parser.error("--sizes takes two sizes, the smaller first (such as 50,150)")
    args.shapes, args.sizes = shapes, sizes
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-callgrind-"))
    redis_server = PrivateRedis(workdir / "redis")
    redis_server.start()
    stage = Stage(redis_server, args.database_url, workdir)
    # conv_tasks (and the bare app) read their settings once: set them before importing them.
    os.environ.update(stage.env(args.task_events))
    print(f"callgrind worker, task events {args.task_events}; dumps and logs in {workdir}")
    print(f"{'shape':<9}{'instr/node':>14}{'tasks':>8}   (difference of sizes {args.sizes})")
    counts: list[Count] = []
    try:
        recreate_database(args.database_url)
        bare = [s for s in args.shapes if s in BARE_SHAPES]
        engine = [s for s in args.shapes if s in ENGINE_SHAPES]
        if bare:
            counts += count_bare(stage, bare, args.sizes)
        if engine:
            counts += count_engine(stage, engine, args.sizes)
    finally:
        redis_server.stop()
    by_shape = {c.shape: c for c in counts}
    for shape, base in (("chain", "bare-hop"), ("fan", "bare-fan")):
        if shape in by_shape and base in by_shape:
            ratio = by_shape[shape].per_node / by_shape[base].per_node
            print(f"{shape} / {base}: {ratio:.1f}x the instructions per node")
    result = {
        "task_events": args.task_events,
        "sizes": list(args.sizes),
        "workdir": str(workdir),
        "counts": {c.shape: c.to_dict() for c in counts},
    }
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))
    return result


def count_shapes(
    shapes: list[str],
    nodes: int = 150,
    *,
    base: int = 50,
    task_events: str = "on",
    database_url: str = DEFAULT_DATABASE_URL,
) -> dict[str, float]:
    """Worker instructions per node of each shape (the difference of a `base`-node and a
    `nodes`-node run), measured in a fresh process: see the module's docstring."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "counts.json"
        subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--shapes", ",".join(shapes),
             "--sizes", f"{base},{nodes}", "--task-events", task_events,
             "--database-url", database_url, "--json", str(out)],
            check=True, cwd=ROOT,
        )  # fmt: skip
        counts = json.loads(out.read_text())["counts"]
    return {shape: float(counts[shape]["per_node"]) for shape in shapes}


def count_instructions(shape: str, nodes: int = 150, **options: Any) -> float:
    """Worker instructions per node of one shape (chain, fan, random, bare-hop, bare-fan)."""
    return count_shapes([shape], nodes, **options)[shape]


if __name__ == "__main__":
    main()
