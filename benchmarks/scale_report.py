"""How the scale benchmark prints its model: rates, costs per node, limits, predicted against
measured nodes/s, and what 1,000 and 10,000 nodes/s would need. It only reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.capacity import Limit, Rates, ShapeModel, fleet_needs

FLEET_RATES = (1_000, 10_000)


def _out(line: str = "") -> None:
    print(line, flush=True)


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def print_rates(rates: Rates, raw: Mapping[str, Any]) -> None:
    _out(f"\n== this machine ({rates.cores} cores), measured in this run")
    core = raw["core"]
    _out(
        f"a core runs the worker's code at {rates.core_instructions_per_s / 1e9:.2f} G "
        "instructions/s (callgrind's instructions per node over the worker's CPU time per node "
        f"at one process); a tight Python loop at {core['instructions_per_s'] / 1e9:.2f} G/s "
        "(the reference workload)"
    )
    pg = raw["postgres"]
    _out(
        f"PostgreSQL: {_rate(rates.pg_commits_per_s)} commits/s (pgbench simple-update, "
        f"{pg['clients']} clients, on the private cluster: fsync and synchronous_commit off)"
    )
    _out(
        f"Redis: {_rate(rates.redis_commands_per_s)} commands/s (redis-benchmark SET, LPUSH, "
        "RPOP, HSET, median; 8 clients, one command per round trip)"
    )


def print_costs(models: Sequence[ShapeModel], runs: Mapping[str, Any], size: int) -> None:
    _out(
        f"\n== per node (a create of {size} resources at one worker process; instructions by "
        "callgrind, the rest counted by the services)"
    )
    _out(
        f"{'shape':<7}{'instr/node':>13}{'worker ms':>10}{'(all':>6}{'user':>6}{'sys)':>6}"
        f"{'PG xacts':>9}{'(commit':>8}{'rollback)':>10}{'SP cmds':>8}{'SP µs':>7}"
        f"{'broker':>7}{'µs':>5}{'PG ms':>7}{'SP ms':>6}{'brk ms':>7}{'bench':>6}"
    )
    for model in models:
        costs = runs["counted"][model.run.shape]
        cpu = costs["cpu_seconds"]
        node = model.run.per_node
        _out(
            f"{model.run.shape:<7}{node.instructions:>13,.0f}"
            f"{costs['worker_marginal_cpu_seconds'] * 1000:>10.2f}{cpu['workers'] * 1000:>6.2f}"
            f"{cpu['workers_user'] * 1000:>6.2f}{cpu['workers_system'] * 1000:>6.2f}"
            f"{node.pg_transactions:>9.2f}{costs['pg_commits']:>8.2f}{costs['pg_rollbacks']:>10.2f}"
            f"{node.redis_commands:>8.2f}{costs['redis_usec']:>7.0f}"
            f"{node.broker_commands:>7.2f}{costs['broker_usec']:>5.0f}"
            f"{cpu['postgres'] * 1000:>7.2f}{cpu['redis'] * 1000:>6.2f}"
            f"{cpu['broker'] * 1000:>7.2f}{cpu['benchmark'] * 1000:>6.2f}"
        )
        for label, key in (
            ("SyncPoint Redis", "redis_by_command"),
            ("broker", "broker_by_command"),
        ):
            top = ", ".join(f"{k} {v:.2f}" for k, v in list(costs[key].items())[:10])
            _out(f"{'':<7}{label} commands per node: {top}")
    _out(
        "worker ms: the worker's CPU per node (/proc), the difference of a create of a fifth "
        "of the size and this one, as instr/node is (all, user, sys: this create's CPU over its "
        "nodes, with what a stack costs once); PG xacts: pg_stat_database; SP (SyncPoint and "
        "results Redis) and broker commands and µs: INFO commandstats of each redis-server "
        "(commands that Lua scripts run count too); PG, SP, brk ms, bench: those processes' "
        "CPU per node"
    )


def print_model(
    models: Sequence[ShapeModel], processes: Sequence[int], runs: Mapping[str, Any]
) -> None:
    _out("\n== the model: nodes/s each resource allows on its own")
    _out(
        f"{'shape':<7}{'worker CPU':>12}{'PostgreSQL':>12}{'SP Redis':>10}{'broker':>9}"
        f"{'this box':>10}{'1 process':>11}   limits first (a fleet: each on its own hosts)"
    )
    for model in models:
        limits = model.resource_limits()
        first, at = model.first_limit()
        _out(
            f"{model.run.shape:<7}{_rate(limits[Limit.WORKER_CPU]):>12}"
            f"{_rate(limits[Limit.POSTGRES]):>12}{_rate(limits[Limit.REDIS]):>10}"
            f"{_rate(limits[Limit.BROKER]):>9}"
            f"{_rate(limits[Limit.BOX_CPU]):>10}{_rate(model.shape_limit(1)):>11}"
            f"   {first} at {_rate(at)} nodes/s"
        )
    _out(
        "worker CPU: cores x instructions/s / instructions per node; PostgreSQL: commits/s / "
        "transactions per node; SP Redis, broker: one Redis's commands/s / commands per node; "
        "this box: cores / (worker + PostgreSQL + both Redis + benchmark CPU seconds per "
        "node); 1 process: fitted, 1 / seconds per node (times min(processes, width) at more)"
    )
    for model in models:
        cpu = runs["counted"][model.run.shape]["cpu_seconds"]
        _out(
            f"cross-check ({model.run.shape}, CPU time): PostgreSQL would fill "
            f"{model.rates.cores} cores at {_rate(model.rates.cores / cpu['postgres'])} nodes/s, "
            f"the SyncPoint Redis its one core at {_rate(1 / cpu['redis'])}, the broker's at "
            f"{_rate(1 / cpu['broker'])} nodes/s"
        )
    _out("\n== predicted against measured nodes/s on this machine (medians)")
    _out(
        f"{'shape':<7}{'processes':>10}{'measured':>10}{'predicted':>11}{'ratio':>7}"
        f"{'others':>8}{'load':>6}   limit"
    )
    for model in models:
        for count in processes:
            p = model.predict(count)
            measured = "-" if p.measured is None else _rate(p.measured)
            ratio = "-" if p.ratio is None else f"{p.ratio:.2f}"
            loads = runs["load_average"].get(count) or [0.0]
            others = model.run.other_cores.get(count, 0.0)
            _out(
                f"{model.run.shape:<7}{count:>10}{measured:>10}{_rate(p.predicted):>11}"
                f"{ratio:>7}{others:>8.2f}{max(loads):>6.1f}   {p.limit}"
            )
    _out(
        "others: cores that other work on the machine kept busy during the creates (/proc/stat "
        "less this run's processes, median); the box's limit counts only the cores they left, "
        "and is never below what one process did. "
        "load: 1-minute load average before the runs (the highest)"
    )


def print_honesty(cores: int, processes: Sequence[int]) -> None:
    beyond = [p for p in processes if p > cores]
    if beyond:
        _out(
            f"\nThis machine has {cores} cores, shared by the workers, PostgreSQL, Redis and the "
            f"benchmark: {', '.join(map(str, beyond))} worker processes cannot run faster than "
            f"{cores} do, whatever a fleet would. The model's limit for them is the box's CPU. "
            "A chain runs one node at a time whatever the processes: a second one only starts "
            "the next node while the first acknowledges its message and sends its event."
        )


def print_fleet(models: Sequence[ShapeModel], rates: Rates) -> dict[str, Any]:
    """What 1,000 and 10,000 nodes/s need of each shape's costs, with server resources as fast
    as this machine's (the stated assumption)."""
    per_core = rates.pg_commits_per_s / rates.cores
    _out(
        f"\n== a fleet, assuming a server core as fast as this machine's: "
        f"{rates.core_instructions_per_s / 1e9:.2f} G instructions/s, "
        f"{_rate(per_core)} PostgreSQL commits/s per core, "
        f"{_rate(rates.redis_commands_per_s)} commands/s per Redis"
    )
    _out(
        f"{'shape':<7}{'nodes/s':>9}{'worker cores':>14}{'PG commits/s':>14}{'PG cores':>10}"
        f"{'SP cmd/s':>11}{'shards':>8}{'broker cmd/s':>14}{'of one Redis':>14}"
    )
    found: dict[str, Any] = {}
    for model in models:
        for target in FLEET_RATES:
            needs = fleet_needs(
                model.run.per_node,
                target,
                server_core_instructions_per_s=rates.core_instructions_per_s,
                pg_commits_per_core=per_core,
                redis_commands_per_shard=rates.redis_commands_per_s,
            )
            found[f"{model.run.shape}@{target}"] = needs
            _out(
                f"{model.run.shape:<7}{target:>9,}{needs.worker_cores:>14.1f}"
                f"{_rate(needs.pg_commits_per_s):>14}{needs.pg_cores:>10.1f}"
                f"{_rate(needs.redis_commands_per_s):>11}{needs.redis_shards:>8}"
                f"{_rate(needs.broker_commands_per_s):>14}{needs.broker_share:>14.0%}"
            )
    return found
