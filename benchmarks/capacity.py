"""The capacity model `make bench-scale` fits: what limits graph nodes per second, and what a
fleet needs for a target rate. Pure arithmetic on measured numbers: no I/O, no clock.

A node costs the worker `instructions`, PostgreSQL `pg_transactions` commits, the SyncPoint
Redis `redis_commands` commands and the broker's Redis `broker_commands`. Each resource caps
nodes/s on its own:

- worker CPU: cores x instructions/s of a core / instructions per node (workers own the cores);
- PostgreSQL: commits/s it sustains / transactions per node;
- Redis (SyncPoints; the broker's apart): commands/s one Redis sustains / commands per node;
- the shape: a worker process runs one node at a time, and a shape lets at most `width` nodes
  run at once (a chain 1), so P processes give at most min(P, width) / seconds per node, the
  seconds per node being fitted from the one-process run (work plus waiting on round trips).

On the one machine the benchmark runs on, the workers also share its cores with PostgreSQL,
Redis, the benchmark itself and whatever else runs there: the box's CPU limit is the cores
that other work left / (worker CPU seconds per node + the CPU seconds the services spent per
node). The prediction for P processes is the least of
the limits that apply, and the resource giving it is the one that limits first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum


class Limit(StrEnum):
    """What caps nodes per second."""

    SHAPE = "processes x shape (one node at a time per process)"
    BOX_CPU = "CPU of this machine (workers, PostgreSQL, Redis share it)"
    WORKER_CPU = "worker CPU"
    POSTGRES = "PostgreSQL commits"
    REDIS = "SyncPoint Redis commands"
    BROKER = "broker Redis commands"


@dataclass(frozen=True)
class PerNode:
    """What one node costs, measured."""

    instructions: float  # worker instructions (callgrind)
    pg_transactions: float  # commits (pg_stat_database)
    redis_commands: float  # commands to the SyncPoint (and results) Redis (INFO commandstats)
    broker_commands: float = 0.0  # commands to the broker's Redis (INFO commandstats)
    other_cpu_seconds: float = 0.0  # CPU of PostgreSQL, Redis and the benchmark on this box


@dataclass(frozen=True)
class Rates:
    """What the machine's resources sustain, measured in the same run."""

    cores: int
    core_instructions_per_s: float
    pg_commits_per_s: float
    redis_commands_per_s: float


@dataclass(frozen=True)
class ShapeRun:
    """One shape as measured: its costs per node, and nodes/s at each number of processes."""

    shape: str
    width: int  # the most nodes the shape lets run at once
    per_node: PerNode
    nodes_per_s: Mapping[int, float]  # worker processes -> measured nodes/s
    # worker processes -> cores that other work on the machine kept busy meanwhile
    other_cores: Mapping[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Prediction:
    processes: int
    predicted: float
    limit: Limit
    measured: float | None

    @property
    def ratio(self) -> float | None:
        """measured / predicted."""
        return None if self.measured is None else self.measured / self.predicted


@dataclass(frozen=True)
class ShapeModel:
    """One shape's fitted model on machines of `rates`."""

    run: ShapeRun
    rates: Rates
    seconds_per_node: float  # fitted: 1 / nodes/s at one process

    @property
    def worker_cpu_seconds(self) -> float:
        """Worker CPU seconds per node on one of the measuring machine's cores."""
        return self.run.per_node.instructions / self.rates.core_instructions_per_s

    def shape_limit(self, processes: int) -> float:
        return min(processes, self.run.width) / self.seconds_per_node

    def resource_limits(self) -> dict[Limit, float]:
        """nodes/s each resource allows on its own, whatever the number of processes."""
        p, r = self.run.per_node, self.rates
        return {
            Limit.WORKER_CPU: r.cores / self.worker_cpu_seconds,
            Limit.BOX_CPU: r.cores / (self.worker_cpu_seconds + p.other_cpu_seconds),
            Limit.POSTGRES: _per(r.pg_commits_per_s, p.pg_transactions),
            Limit.REDIS: _per(r.redis_commands_per_s, p.redis_commands),
            Limit.BROKER: _per(r.redis_commands_per_s, p.broker_commands),
        }

    def first_limit(self) -> tuple[Limit, float]:
        """Which of worker CPU, PostgreSQL and Redis limits first when each has hosts of its
        own (a fleet), and at how many nodes/s."""
        fleet = {k: v for k, v in self.resource_limits().items() if k is not Limit.BOX_CPU}
        return min(fleet.items(), key=lambda item: item[1])

    def box_limit(self, processes: int) -> float:
        """The machine's CPU limit with what other work on it used while `processes` ran;
        never below what one process was measured to do: the machine did that much, so a
        lower figure only says that the other work's share was misread (it yields cores to
        ours when ours wants them)."""
        other = self.run.other_cores.get(processes, 0.0)
        free = max(0.0, self.rates.cores - other)
        seconds = self.worker_cpu_seconds + self.run.per_node.other_cpu_seconds
        return max(free / seconds, 1.0 / self.seconds_per_node)

    def predict(self, processes: int) -> Prediction:
        """nodes/s on the measuring machine with `processes` worker processes: the least of
        the shape's limit, the machine's CPU that other work left, PostgreSQL and Redis."""
        limits = self.resource_limits()
        candidates = {
            Limit.SHAPE: self.shape_limit(processes),
            Limit.BOX_CPU: self.box_limit(processes),
            Limit.POSTGRES: limits[Limit.POSTGRES],
            Limit.REDIS: limits[Limit.REDIS],
            Limit.BROKER: limits[Limit.BROKER],
        }
        limit, value = min(candidates.items(), key=lambda item: item[1])
        return Prediction(processes, value, limit, self.run.nodes_per_s.get(processes))


def _per(capacity: float, cost: float) -> float:
    return math.inf if cost <= 0 else capacity / cost


def fit(rates: Rates, run: ShapeRun) -> ShapeModel:
    """A shape's model: costs and rates as measured, seconds per node from the one-process
    run (the only fitted number)."""
    if rates.cores < 1 or rates.core_instructions_per_s <= 0:
        raise ValueError("rates need at least one core and a positive instructions/s")
    if run.per_node.instructions <= 0:
        raise ValueError(f"shape {run.shape!r}: instructions per node must be positive")
    one = run.nodes_per_s.get(1)
    if not one or one <= 0:
        raise ValueError(f"shape {run.shape!r} has no one-process measurement to fit")
    return ShapeModel(replace(run, width=max(1, run.width)), rates, 1.0 / one)


@dataclass(frozen=True)
class FleetNeeds:
    """What `nodes_per_s` needs, each resource on its own hosts."""

    nodes_per_s: float
    worker_cores: float
    pg_commits_per_s: float
    pg_cores: float
    redis_commands_per_s: float
    redis_shards: int  # single-threaded Redis instances (Redis Cluster primaries)
    broker_commands_per_s: float
    broker_share: float  # of one Redis instance: the broker's queue is one key


def fleet_needs(
    per_node: PerNode,
    nodes_per_s: float,
    *,
    server_core_instructions_per_s: float,
    pg_commits_per_core: float,
    redis_commands_per_shard: float,
) -> FleetNeeds:
    """Worker cores, PostgreSQL commits and cores, SyncPoint Redis commands and shards, and the
    broker's commands (and its share of one Redis) for a rate, with a stated speed of a server
    core, commits per PostgreSQL core and commands per Redis instance."""
    commits = nodes_per_s * per_node.pg_transactions
    commands = nodes_per_s * per_node.redis_commands
    broker = nodes_per_s * per_node.broker_commands
    return FleetNeeds(
        nodes_per_s=nodes_per_s,
        worker_cores=nodes_per_s * per_node.instructions / server_core_instructions_per_s,
        pg_commits_per_s=commits,
        pg_cores=commits / pg_commits_per_core,
        redis_commands_per_s=commands,
        redis_shards=max(1, math.ceil(commands / redis_commands_per_shard)),
        broker_commands_per_s=broker,
        broker_share=broker / redis_commands_per_shard,
    )
