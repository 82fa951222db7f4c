"""ConvTasks::Celery::Task benchmark: what the engine adds to a task of another service, against
that task run directly with `send_task` and `.get()`, in one run.

    python benchmarks/bench_celery_task.py [--runs 30] [--widths 20,100] [--workers 2]
                                           [--json out.json]

Everything it uses is its own: a private redis-server on a free port (conv_tasks' broker,
SyncPoints and results in databases 0-2, the service's broker and results in 3-4, reached
through a connection named in a CONV_TASKS_CONNECTIONS file it writes), and the
`conv_tasks_bench_celery_task` database, dropped, recreated and migrated. The service is
benchmarks/celery_task_service.py, whose one task answers at once, on its own workers.

- one at a time: the bare call (send_task, then .get()) against a stack of one
  ConvTasks::Celery::Task resource calling the same task, from the create request to the
  stack row saying CREATE_COMPLETE; and, for the engine's own floor, a stack of one
  OS::Heat::None. Medians of `--runs`, and the ratio resource / bare.
- many at once: `width` bare calls sent together, then every .get(), against a stack of
  `width` independent resources.

It only reports; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import celery_task_service as svc
from benchmarks import report
from benchmarks.services import ROOT, PrivateRedis, StackWatcher, Workers, recreate_database

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks_bench_celery_task"
CONNECTION = "bench-service"
SERVICE_BROKER_DB, SERVICE_RESULTS_DB = 3, 4


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="one-at-a-time runs of each")
    parser.add_argument("--widths", default="20,100", help="resources of the many-at-once stacks")
    parser.add_argument("--workers", type=int, default=2, help="conv_tasks worker processes")
    parser.add_argument("--pool", default="solo", help="Celery pool of conv_tasks' workers")
    parser.add_argument("--service-concurrency", type=int, default=2, help="service pool size")
    parser.add_argument("--timeout", type=float, default=600.0, help="per operation, seconds")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    return parser.parse_args(argv)


def _env(server: PrivateRedis, database_url: str, connections: Path) -> dict[str, str]:
    return {
        "CONV_TASKS_DATABASE_URL": database_url,
        "CONV_TASKS_BROKER_URL": server.url(0),
        "CONV_TASKS_REDIS_URL": server.url(1),
        "CONV_TASKS_RESULT_BACKEND": server.url(2),
        "CONV_TASKS_REDIS_PREFIX": "bench-celery-task",
        "CONV_TASKS_TASK_EVENTS": "1",
        "CONV_TASKS_CONNECTIONS": str(connections),
        "BENCH_SERVICE_BROKER_URL": server.url(SERVICE_BROKER_DB),
        "BENCH_SERVICE_RESULT_BACKEND": server.url(SERVICE_RESULTS_DB),
    }


def _connections_file(server: PrivateRedis, workdir: Path) -> Path:
    body = {
        "default": {
            CONNECTION: {
                "kind": "celery",
                "broker_url": server.url(SERVICE_BROKER_DB),
                "result_backend": server.url(SERVICE_RESULTS_DB),
            }
        }
    }
    path = workdir / "connections.yaml"
    path.write_text(json.dumps(body))  # JSON is YAML
    return path


def _task_stack(width: int, tag: str) -> dict[str, Any]:
    body = {
        "type": "ConvTasks::Celery::Task",
        "properties": {
            "connection": CONNECTION,
            "create": {"task": svc.ECHO, "queue": svc.QUEUE, "kwargs": {"n": 0, "tag": tag}},
        },
    }
    resources = {f"t{i}": body for i in range(width)}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _none_stack() -> dict[str, Any]:
    resources = {"t0": {"type": "OS::Heat::None"}}
    return {"heat_template_version": "2018-08-31", "resources": resources}


class Bench:
    def __init__(self, args: argparse.Namespace, client: Any, watcher: StackWatcher) -> None:
        self.args = args
        self.client = client
        self.watcher = watcher
        self.service = svc.app

    def bare_one(self) -> float:
        """Seconds of one send_task and its .get()."""
        start = time.perf_counter()
        sent = self.service.send_task(
            svc.ECHO, kwargs={"idempotency_key": uuid.uuid4().hex, "n": 0}, queue=svc.QUEUE
        )
        sent.get(timeout=self.args.timeout)
        return time.perf_counter() - start

    def bare_many(self, width: int) -> float:
        """Seconds from sending `width` calls to the last .get() returning."""
        start = time.perf_counter()
        sent = [
            self.service.send_task(
                svc.ECHO, kwargs={"idempotency_key": uuid.uuid4().hex, "n": i}, queue=svc.QUEUE
            )
            for i in range(width)
        ]
        for result in sent:
            result.get(timeout=self.args.timeout)
        return time.perf_counter() - start

    def stack(self, template: dict[str, Any]) -> float:
        """Seconds from the create request to the stack row saying it finished."""
        start = time.perf_counter()
        name = f"s-{uuid.uuid4().hex[:8]}"
        stack_id = str(self.client.create(name, template, disable_rollback=True)["stack_id"])
        status, end = self.watcher.wait(stack_id, "CREATE", self.args.timeout)
        if status != "CREATE_COMPLETE":
            raise RuntimeError(f"stack {stack_id} ended {status}")
        self.client.delete(stack_id)  # a resource without a delete task is only forgotten
        self.watcher.wait(stack_id, "DELETE", self.args.timeout)
        return end - start


def _ms(seconds: list[float]) -> float:
    return median(seconds) * 1000


def measure(args: argparse.Namespace, bench: Bench) -> dict[str, Any]:
    widths = [int(w) for w in args.widths.split(",") if w.strip()]
    for _ in range(5):  # warm up: connections, imports, caches
        bench.bare_one()
        bench.stack(_task_stack(1, "warm-up"))
        bench.stack(_none_stack())
    runs = args.runs
    bare = [bench.bare_one() for _ in range(runs)]
    resource = [bench.stack(_task_stack(1, f"one-{n}")) for n in range(runs)]
    floor = [bench.stack(_none_stack()) for _ in range(runs)]
    bare_again = [bench.bare_one() for _ in range(runs)]
    one = {
        "runs": runs,
        "bare_ms": _ms(bare),
        "bare_again_ms": _ms(bare_again),
        "resource_ms": _ms(resource),
        "none_stack_ms": _ms(floor),
        "ratio": _ms(resource) / _ms(bare),
        "overhead_ms": _ms(resource) - _ms(bare),
        "over_none_stack_ms": _ms(resource) - _ms(floor),
        "raw_s": {"bare": bare, "resource": resource, "none": floor, "bare_again": bare_again},
    }
    many = []
    for width in widths:
        bare_s = median(bench.bare_many(width) for _ in range(3))
        stack_s = median(bench.stack(_task_stack(width, f"many-{width}")) for _ in range(3))
        many.append(
            {
                "width": width,
                "bare_s": bare_s,
                "resources_s": stack_s,
                "ratio": stack_s / bare_s,
                "resource_ms_each": stack_s * 1000 / width,
                "bare_ms_each": bare_s * 1000 / width,
            }
        )
    return {"one_at_a_time": one, "many_at_once": many}


def show(results: dict[str, Any], args: argparse.Namespace) -> None:
    one = results["one_at_a_time"]
    print(
        f"\n== ConvTasks::Celery::Task against send_task + .get(): {args.workers} conv_tasks "
        f"worker(s), pool {args.pool}; the service on 1 worker, prefork x"
        f"{args.service_concurrency}; medians of {one['runs']} runs",
        flush=True,
    )
    print(f"bare call (send_task, .get()):          {one['bare_ms']:8.2f} ms", flush=True)
    print(f"  again, after the stacks:              {one['bare_again_ms']:8.2f} ms", flush=True)
    print(f"stack of one ConvTasks::Celery::Task:   {one['resource_ms']:8.2f} ms", flush=True)
    print(f"stack of one OS::Heat::None (floor):    {one['none_stack_ms']:8.2f} ms", flush=True)
    print(
        f"ratio resource / bare: {one['ratio']:.1f}x; the engine adds {one['overhead_ms']:.1f} ms"
        f" to the call, {one['over_none_stack_ms']:.1f} ms of it over an empty resource",
        flush=True,
    )
    print(f"{'width':>6}{'bare s':>10}{'stack s':>10}{'ratio':>8}{'ms/res':>9}{'bare ms':>9}")
    for row in results["many_at_once"]:
        print(
            f"{row['width']:>6}{row['bare_s']:>10.3f}{row['resources_s']:>10.3f}"
            f"{row['ratio']:>8.1f}{row['resource_ms_each']:>9.2f}{row['bare_ms_each']:>9.2f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    subprocess.run([str(ROOT / "scripts" / "ensure-services.sh")], check=True)
    workdir = Path(tempfile.mkdtemp(prefix="conv-tasks-bench-celery-task-"))
    server = PrivateRedis(workdir / "redis")
    server.start()
    env = _env(server, args.database_url, _connections_file(server, workdir))
    # conv_tasks and the service app read their settings once: set them before importing.
    os.environ.update(env)
    print(f"private redis-server on port {server.port}; logs in {workdir}", flush=True)
    started = time.time()
    results: dict[str, Any] = {"config": vars(args) | {"json": str(args.json)}}
    service = Workers("benchmarks.celery_task_service", env, workdir / "logs", "svc")
    engine = Workers("conv_tasks.tasks.app", env, workdir / "logs", "conv")
    try:
        recreate_database(args.database_url)
        from conv_tasks.client import Client
        from conv_tasks.tasks.app import app

        svc.app.conf.update(
            broker_url=env["BENCH_SERVICE_BROKER_URL"],
            result_backend=env["BENCH_SERVICE_RESULT_BACKEND"],
        )
        service.start(1, pool="prefork", concurrency=args.service_concurrency)
        engine.start(args.workers, pool=args.pool, concurrency=1)
        service.wait_ready(svc.app)
        engine.wait_ready(app)
        watcher = StackWatcher(args.database_url)
        try:
            client = Client(app, tenant="bench-celery-task", timeout=args.timeout)
            results.update(measure(args, Bench(args, client, watcher)))
        finally:
            watcher.close()
        show(results, args)
    finally:
        engine.stop()
        service.stop()
        server.stop()
        results["seconds"] = time.time() - started
        if args.json is not None:
            report.write_json(args.json, results)
    print(f"\nConvTasks::Celery::Task benchmark finished in {results['seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
