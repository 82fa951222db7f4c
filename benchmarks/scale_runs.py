"""The scale benchmark's engine runs: nodes per second of each shape at 1, 2, 4 worker
processes, and, at one process, what each node costs the services.

Every worker is `celery worker --pool solo` (one node at a time per process), on the
benchmark's own PostgreSQL cluster and redis-servers (SyncPoints and results on one, the broker
on another), so that every transaction counted in pg_stat_database and every command counted
in INFO commandstats is the run's own. The workers are started once; how many take messages
is chosen with Celery's cancel_consumer and add_consumer. A stack's
create is timed from the request to its row saying CREATE_COMPLETE (StackWatcher reads the row
directly, no worker involved); nodes/s is resources / seconds, the median of the repeats.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from benchmarks.baseline import run_operation
from benchmarks.config import Stage
from benchmarks.cpu_time import (
    cpu_seconds,
    machine_busy_seconds,
    tree_cpu_seconds,
    user_system_seconds,
)
from benchmarks.services import PrivateRedis, StackWatcher, Workers, pg_connect

# A backend reports its transactions to pg_stat_database at most once a second while busy and
# within 10 s (PGSTAT_IDLE_INTERVAL) once idle: counts are read after a quiet spell this long.
PG_STAT_QUIET = 11.5
SETTLE = 0.5  # seconds after the last create: the last acknowledgements and events land
CONSUMER_SETTLE = 2.5
_OWN_COMMANDS = frozenset({"info"})  # the benchmark's own snapshots of commandstats


@dataclass(frozen=True)
class Services:
    """The run's own services, and the processes whose CPU it reads: PostgreSQL, the
    SyncPoint (and results) redis-server, the broker's redis-server."""

    stage: Stage
    broker: PrivateRedis
    database: str
    postmaster_pid: int

    def env(self, events: str) -> dict[str, str]:
        return self.stage.env(events, broker_port=self.broker.port)

    def redis_pids(self) -> dict[str, int]:
        found = {}
        for name, server in (("redis", self.stage.redis), ("broker", self.broker)):
            if server.proc is None:
                raise RuntimeError(f"the benchmark's {name} redis-server is not running")
            found[name] = server.proc.pid
        return found


def postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "postmaster.pid").read_text().split()[0])


def _pg_transactions(admin: Any, database: str) -> tuple[int, int]:
    with admin.cursor() as cur:
        cur.execute(
            "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = %s",
            (database,),
        )
        row = cur.fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def _redis_commands(server: PrivateRedis) -> dict[str, tuple[int, int]]:
    """calls and usec of each command, from INFO commandstats."""
    stats: Mapping[str, Any] = server.client(0).info("commandstats")
    found = {}
    for key, value in stats.items():
        name = key.removeprefix("cmdstat_")
        if name not in _OWN_COMMANDS:
            found[name] = (int(value.get("calls", 0)), int(value.get("usec", 0)))
    return found


def _cpu(services: Services, workers: list[int]) -> dict[str, float]:
    """CPU seconds so far of these worker processes (solo: no children) and of the services."""
    user, system = user_system_seconds(workers)
    return {
        "workers": user + system,
        "workers_user": user,
        "workers_system": system,
        "postgres": tree_cpu_seconds(services.postmaster_pid),
        **{name: cpu_seconds([pid]) for name, pid in services.redis_pids().items()},
        "benchmark": cpu_seconds([os.getpid()]),
    }


def _ours(cpu: Mapping[str, float]) -> float:
    return sum(cpu[k] for k in ("workers", "postgres", "redis", "broker", "benchmark"))


def _difference(
    after: Mapping[str, tuple[int, int]], before: Mapping[str, tuple[int, int]]
) -> dict[str, tuple[int, int]]:
    found = {}
    for name, (calls, usec) in after.items():
        was = before.get(name, (0, 0))
        if calls != was[0]:
            found[name] = (calls - was[0], usec - was[1])
    return found


def _per_node(commands: Mapping[str, tuple[int, int]], nodes: int) -> dict[str, float]:
    ordered = sorted(commands.items(), key=lambda item: -item[1][0])
    return {name: calls / nodes for name, (calls, _) in ordered}


class _Costs:
    """What the services did between start() and stop(), per node."""

    def __init__(self, services: Services, workers: list[int], watcher: StackWatcher) -> None:
        self.services, self.workers, self.watcher = services, workers, watcher
        self.admin = pg_connect(services.stage.database_url, "postgres")

    def start(self) -> None:
        time.sleep(PG_STAT_QUIET)
        self.xacts = _pg_transactions(self.admin, self.services.database)
        self.polls = self.watcher.queries
        self.commands = _redis_commands(self.services.stage.redis)
        self.broker = _redis_commands(self.services.broker)
        self.cpu = _cpu(self.services, self.workers)

    def stop(self, nodes: int) -> dict[str, Any]:
        time.sleep(SETTLE)
        cpu = _cpu(self.services, self.workers)
        commands = _redis_commands(self.services.stage.redis)
        broker = _redis_commands(self.services.broker)
        time.sleep(PG_STAT_QUIET)
        commit, rollback = _pg_transactions(self.admin, self.services.database)
        # The watcher's polls are transactions of the same database, not the workers'.
        polls = self.watcher.queries - self.polls
        by_command = _difference(commands, self.commands)
        by_broker = _difference(broker, self.broker)
        return {
            "nodes": nodes,
            "pg_commits": (commit - self.xacts[0] - polls) / nodes,
            "pg_rollbacks": (rollback - self.xacts[1]) / nodes,
            "redis_commands": sum(c for c, _ in by_command.values()) / nodes,
            "redis_usec": sum(u for _, u in by_command.values()) / nodes,
            "redis_by_command": _per_node(by_command, nodes),
            "broker_commands": sum(c for c, _ in by_broker.values()) / nodes,
            "broker_usec": sum(u for _, u in by_broker.values()) / nodes,
            "broker_by_command": _per_node(by_broker, nodes),
            "cpu_seconds": {k: (cpu[k] - self.cpu[k]) / nodes for k in cpu},
        }

    def close(self) -> None:
        self.admin.close()


class ActiveWorkers:
    """`celery worker` processes of which only some take messages: the others' consumers are
    cancelled (Celery's cancel_consumer), so one start serves every number of processes and
    the numbers can take turns while the machine's load drifts."""

    def __init__(self, workers: Workers, app: Any) -> None:
        from conv_tasks.broker.options import conv_tasks_queues

        self.app = app
        self.queues = conv_tasks_queues()
        replies = app.control.ping(timeout=2.0) or []
        names = sorted(name for reply in replies for name in reply)
        self.nodes = [n for n in names if n.split("@")[0].startswith(workers.label)]
        if len(self.nodes) != len(workers.procs):
            raise RuntimeError(f"expected {len(workers.procs)} workers, found {self.nodes}")
        self.active = len(self.nodes)

    def _control(self, method: str, node: str) -> None:
        for queue in self.queues:
            call = getattr(self.app.control, method)
            answer = call(queue.name, destination=[node], reply=True, timeout=10.0)
            if not answer or "ok" not in answer[0].get(node, {}):
                raise RuntimeError(f"{method} {queue.name} on {node}: {answer}")

    def set(self, count: int) -> None:
        """Let the first `count` workers consume, and only them."""
        for node in self.nodes[count : self.active]:
            self._control("cancel_consumer", node)
        for node in self.nodes[self.active : count]:
            # The worker knows these queues (task_queues): it adds them as declared.
            self._control("add_consumer", node)
        self.active = count
        # A fetch a cancelled consumer started before the cancel (a BRPOP times out after a
        # second) must not hold the next stack's first message.
        time.sleep(CONSUMER_SETTLE)


def _create(
    client: Any, watcher: StackWatcher, shape: str, size: int, name: str, timeout: float, logs: Path
) -> tuple[float, int]:
    """nodes/s of one create, and its resources."""
    _, op = run_operation(client, watcher, shape, size, "create", name, timeout)
    if op.status != "CREATE_COMPLETE":
        raise RuntimeError(f"{name} ended {op.status}; logs in {logs}")
    return op.resources / op.seconds, op.resources


def run_shapes(
    services: Services,
    processes: tuple[int, ...],
    shapes: tuple[str, ...],
    size: int,
    *,
    repeats: int,
    events: str,
    timeout: float,
) -> dict[str, Any]:
    """Each shape's create at each number of worker processes, `repeats` times in turns (1, 2,
    4, then 4, 2, 1, ...); first, at one process, once more with its costs per node counted."""
    from conv_tasks.client import Client
    from conv_tasks.tasks.app import app

    stage, logs = services.stage, services.stage.log_dir
    workers = Workers("conv_tasks.tasks.app", services.env(events), stage.log_dir, "scale")
    workers.start(max(processes), pool="solo", concurrency=1)
    client = Client(tenant="bench-scale", timeout=timeout)
    watcher = StackWatcher(stage.database_url)
    # At one process only the first worker consumes: its CPU is the workers' CPU.
    costs = _Costs(services, [workers.procs[0].pid], watcher)  # only the first at one
    samples: dict[int, dict[str, list[float]]] = {p: {s: [] for s in shapes} for p in processes}
    cpu: dict[int, dict[str, list[float]]] = {p: {s: [] for s in shapes} for p in processes}
    load: dict[int, list[float]] = {p: [] for p in processes}
    others: dict[int, list[float]] = {p: [] for p in processes}
    counted: dict[str, Any] = {}
    try:
        workers.wait_ready(app)
        active = ActiveWorkers(workers, app)
        for shape in shapes:  # warm up: connections, imports, each shape's code paths
            run_operation(client, watcher, shape, 10, "create", f"warm-{shape}", timeout)
        active.set(1)
        first = [workers.procs[0].pid]
        for shape in shapes:
            # A smaller create first: the difference of the two is the worker's CPU per node
            # without what a stack costs once (the request, its plan, its end).
            before = _cpu(services, first)["workers"]
            _, small = _create(client, watcher, shape, max(10, size // 5), f"{shape}-small",
                               timeout, logs)  # fmt: skip
            small_cpu = _cpu(services, first)["workers"] - before
            costs.start()
            name = f"{shape}-counted"
            rate, nodes = _create(client, watcher, shape, size, name, timeout, logs)
            counted[shape] = costs.stop(nodes)
            marginal = counted[shape]["cpu_seconds"]["workers"] * nodes - small_cpu
            counted[shape]["worker_marginal_cpu_seconds"] = marginal / (nodes - small)
            samples[1][shape].append(rate)
        for repeat in range(repeats):
            order = processes if repeat % 2 == 0 else tuple(reversed(processes))
            for count in order:
                active.set(count)
                load[count].append(os.getloadavg()[0])
                for shape in shapes:
                    pids = [p.pid for p in workers.procs[:count]]
                    all_pids = [p.pid for p in workers.procs]
                    before = _cpu(services, pids)["workers"]
                    ours, busy = _ours(_cpu(services, all_pids)), machine_busy_seconds()
                    start = time.perf_counter()
                    name = f"{shape}-p{count}-{repeat}"
                    rate, nodes = _create(client, watcher, shape, size, name, timeout, logs)
                    samples[count][shape].append(rate)
                    used = _cpu(services, pids)["workers"] - before
                    cpu[count][shape].append(used / nodes)
                    # Cores that other work on the machine kept busy during the create.
                    mine = _ours(_cpu(services, all_pids)) - ours
                    theirs = machine_busy_seconds() - busy - mine
                    others[count].append(max(0.0, theirs) / (time.perf_counter() - start))
    finally:
        costs.close()
        watcher.close()
        workers.stop()
    return {
        "counted": counted,
        "load_average": load,
        "other_cores": {count: median(found) for count, found in others.items() if found},
        "by_processes": {
            count: {
                shape: {
                    "nodes_per_s": median(samples[count][shape]),
                    "runs": samples[count][shape],
                    "worker_cpu_seconds_per_node": median(cpu[count][shape]),
                }
                for shape in shapes
            }
            for count in processes
        },
    }
