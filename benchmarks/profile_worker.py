"""Where a worker's time goes per graph node: cProfile of one solo worker through creates.

    python benchmarks/profile_worker.py [--shapes chain,fan] [--size 1000] [--top 40]

One `celery worker --pool solo` runs under cProfile, timed in CPU seconds; after a
small warm-up it creates a stack of each shape (OS::Heat::None resources,
benchmarks/shapes.py) and is stopped, and its profile (start-up included, on
functions of its own) is printed by own time and by cumulative time, per
resource. The .prof file stays in the run's directory (printed at the start)
for `python -m pstats` or snakeviz. cProfile weighs Python calls more than C:
for what a change saves, count instructions (benchmarks/instructions_per_node.py).

Its services are its own: a private redis-server and the `conv_tasks_profile`
database, dropped and recreated.
"""

from __future__ import annotations

import argparse
import io
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.config import Stage
from benchmarks.services import ROOT, PrivateRedis, StackWatcher, Workers, recreate_database

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_profile"
TIMEOUT = 1800.0


# cProfile on CPU time (time.process_time), not wall-clock time: a worker waiting for
# PostgreSQL or Redis spends no CPU, and the machine's other load does not count either.
_PROFILED = """
import cProfile, runpy, sys, time
out = sys.argv.pop(1)
sys.argv[0] = "celery"
profile = cProfile.Profile(time.process_time)
profile.enable()
try:
    runpy.run_module("celery", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    profile.disable()
    profile.dump_stats(out)
"""


class ProfiledWorkers(Workers):
    """A solo worker whose python runs under cProfile, writing `profile` when it stops."""

    def __init__(self, env: dict[str, str], log_dir: Path, profile: Path) -> None:
        super().__init__("conv_tasks.tasks.app", env, log_dir, "profiled")
        self.profile = profile

    def start(self, count: int, *, pool: str, concurrency: int, queues: str | None = None) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_dir / "profiled.log", "ab") as log:
            self.procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", _PROFILED, str(self.profile), "-A", self.app,
                     "worker", "--loglevel", "WARNING",
                     "--pool", "solo", "--concurrency", "1", "--hostname", "profiled0@%h",
                     "--without-gossip", "--without-mingle"],
                    env=self.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--shapes", default="chain,fan")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--task-events", default="on", choices=("on", "off", "sent"))
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-profile-"))
    redis_server = PrivateRedis(workdir / "redis")
    redis_server.start()
    stage = Stage(redis_server, args.database_url, workdir)
    os.environ.update(stage.env(args.task_events))
    profile = workdir / "worker.prof"
    print(f"profiled solo worker; profile and logs in {workdir}", flush=True)
    from benchmarks.baseline import resource_count, run_operation
    from conv_tasks.client import Client
    from conv_tasks.tasks.app import app

    resources = 0
    try:
        recreate_database(args.database_url)
        workers = ProfiledWorkers(stage.env(args.task_events), workdir, profile)
        workers.start(1, pool="solo", concurrency=1)
        client = Client(tenant="profile", timeout=TIMEOUT)
        watcher = StackWatcher(args.database_url)
        try:
            workers.wait_ready(app, timeout=120)
            run_operation(client, watcher, "chain", 5, "create", "warm-up", TIMEOUT)
            for shape in shapes:
                _, op = run_operation(
                    client, watcher, shape, args.size, "create", f"{shape}-{args.size}", TIMEOUT
                )
                resources += resource_count(shape, args.size)
                print(f"{shape} {args.size}: {op.status} in {op.seconds:.1f} s", flush=True)
        finally:
            watcher.close()
            workers.stop(timeout=120)
    finally:
        redis_server.stop()
    stats = pstats.Stats(str(profile), stream=(out := io.StringIO()))
    print(
        f"\n{resources} resources; the whole process (start-up included): "
        f"{stats.total_tt:.1f} CPU s"
    )
    for order in ("tottime", "cumulative"):
        stats.sort_stats(order).print_stats(args.top)
    print(out.getvalue())


if __name__ == "__main__":
    main()
