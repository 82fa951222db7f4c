"""The counting pass: one solo worker behind counting proxies; round trips, not time.

The worker reaches PostgreSQL and each of the three Redis roles through its
own proxy port (benchmarks/proxies.py); the benchmark itself connects
directly, so its requests and polls are not counted. First the bare relay
proves the method (about 4 broker round trips per hop); then, once per
task-event mode, conv_tasks walks each shape through create, update and
delete.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from typing import Any

from sqlalchemy.engine import make_url

from benchmarks import bare_app, report
from benchmarks.baseline import OPERATIONS, fan_in, relay, run_operation
from benchmarks.config import SYNCPOINT_DB, Config, Stage
from benchmarks.proxies import CountingProxies, Tally, difference
from benchmarks.services import (
    StackWatcher,
    Workers,
    pg_connect,
    proxied_database_url,
    transactions_of,
)

NODE_TASK = b"conv_tasks.node.converge"
CATEGORIES = ("postgres", "broker", "syncpoint", "results")
IDLE_SECONDS = 5.0
PG_STAT_QUIET = 12.0


def per_unit(delta: dict[str, Tally], units: int) -> dict[str, float]:
    """The per-resource (or per-hop) figures of one measured interval."""
    pg, broker = delta["postgres"], delta["broker"]
    control = sum(pg.commands[k] for k in ("begin", "commit", "rollback"))
    # A statement is a simple query, or an Execute of the extended protocol (psycopg 3).
    statements = pg.commands["statement"] + pg.commands["execute"]
    return {
        "sql": statements / units,
        "pg_messages": (statements + control) / units,
        "pg_rt": pg.turns / units,
        "xacts": pg.transactions / units,
        "broker_rt": broker.turns / units,
        "syncpoint_rt": delta["syncpoint"].turns / units,
        "results_rt": delta["results"].turns / units,
        "messages": broker.commands["LPUSH"] / units,
        "events": broker.commands["PUBLISH"] / units,
    }


def _measure(
    proxies: CountingProxies, settle: float, work: Callable[[], Any]
) -> tuple[Any, dict[str, Tally]]:
    before = proxies.snapshot()
    result = work()
    time.sleep(settle)  # the last acknowledgement and buffered events land
    return result, difference(proxies.snapshot(), before)


class CountingRig:
    """Proxies in front of the benchmark's services, and worker environments that use them."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.proxies = CountingProxies()
        db = make_url(stage.database_url)
        local, redis_port = "127.0.0.1", stage.redis.port
        add = self.proxies.add
        self.ports = {
            "postgres": add("postgres", db.host or local, db.port or 5432, pg=True),
            "broker": add("broker", local, redis_port, pg=False, marker=NODE_TASK),
            "syncpoint": add("syncpoint", local, redis_port, pg=False),
            "results": add("results", local, redis_port, pg=False),
        }

    def env(self, events: str) -> dict[str, str]:
        return self.stage.env(
            events,
            database_url=proxied_database_url(self.stage.database_url, self.ports["postgres"]),
            broker_port=self.ports["broker"],
            syncpoint_port=self.ports["syncpoint"],
            results_port=self.ports["results"],
        )

    def idle(self, seconds: float = 5.0) -> dict[str, float]:
        """Round trips per second of an idle worker (BRPOP timeouts, heartbeats, restores)."""
        _, delta = _measure(self.proxies, 0.0, lambda: time.sleep(seconds))
        return {name: delta[name].turns / seconds for name in CATEGORIES if name in delta}


def count_bare(cfg: Config, rig: CountingRig) -> dict[str, Any]:
    keys = rig.stage.redis.client(SYNCPOINT_DB)
    workers = Workers("benchmarks.bare_app", rig.env("off"), rig.stage.log_dir, "bare-count")
    workers.start(1, pool="solo", concurrency=1)
    try:
        workers.wait_ready(bare_app.app)
        relay(keys, 20)
        fan_in(keys, 20)
        idle = rig.idle()
        seconds, hop = _measure(rig.proxies, 0.5, lambda: relay(keys, cfg.count_hops))
        width = max(cfg.count_sizes)
        fan_seconds, fan = _measure(rig.proxies, 0.5, lambda: fan_in(keys, width))
    finally:
        workers.stop()
    result = {
        "idle_rt_per_s": idle,
        "hop": {
            "hops": cfg.count_hops,
            "seconds": seconds,
            "per_hop": per_unit(hop, cfg.count_hops),
            "broker_turns_by_lead_per_hop": {
                k: v / cfg.count_hops for k, v in hop["broker"].turns_by_lead.items()
            },
            "raw": {k: v.to_dict() for k, v in hop.items()},
        },
        "fan_in": {
            "width": width,
            "seconds": fan_seconds,
            "per_leaf": per_unit(fan, width),
            "raw": {k: v.to_dict() for k, v in fan.items()},
        },
    }
    report.print_bare_counts(result)
    return result


def count_engine(cfg: Config, rig: CountingRig, events: str) -> dict[str, Any]:
    from conv_tasks.client import Client
    from conv_tasks.tasks.app import app

    stage = rig.stage
    database = make_url(stage.database_url).database or ""
    workers = Workers("conv_tasks.tasks.app", rig.env(events), stage.log_dir, f"count-{events}")
    workers.start(1, pool="solo", concurrency=1)
    client = Client(tenant=f"bench-count-{events}", timeout=cfg.timeout)
    watcher = StackWatcher(stage.database_url)
    admin = pg_connect(stage.database_url, "postgres")
    runs: list[dict[str, Any]] = []
    rss: dict[int, list[float]] = {}
    try:
        workers.wait_ready(app)
        stack = "warm-up"
        for operation in OPERATIONS:
            stack, _ = run_operation(client, watcher, "chain", 10, operation, stack, cfg.timeout)
        idle = rig.idle(IDLE_SECONDS)
        report.print_count_header(events, idle)
        # A backend flushes its statistics at most once a second, and when idle within
        # PGSTAT_IDLE_INTERVAL (10 s): pg_stat_database is only read after a quiet spell, and
        # only as a cross-check of the whole pass.
        time.sleep(PG_STAT_QUIET - IDLE_SECONDS)
        xacts, polls = transactions_of(admin, database), watcher.queries
        for size in cfg.count_sizes:
            for shape in cfg.shapes:
                stack = f"{shape}-{size}"
                for operation in OPERATIONS:
                    walk = partial(run_operation, client, watcher, shape, size, operation)
                    (stack, op), delta = _measure(
                        rig.proxies, cfg.settle, partial(walk, stack, cfg.timeout)
                    )
                    tasks = delta["broker"].marked["LPUSH"]
                    row = {
                        **asdict(op),
                        "per_resource": per_unit(delta, op.resources),
                        "node_tasks": tasks,
                        "per_node_task": per_unit(delta, tasks) if tasks else None,
                        "raw": {k: v.to_dict() for k, v in delta.items()},
                    }
                    runs.append(row)
                    report.print_count_row(row)
            rss[size] = workers.rss_mb()
            report.print_rss(size, rss[size])
        time.sleep(PG_STAT_QUIET)
        # The watcher's polls are transactions of the same database, but not the worker's.
        pg_stat = transactions_of(admin, database) - xacts - (watcher.queries - polls)
    finally:
        admin.close()
        watcher.close()
        workers.stop()
    proxy = sum(run["raw"]["postgres"]["transactions"] for run in runs)
    report.print_leads(runs)
    report.print_transaction_check(proxy, pg_stat)
    return {
        "task_events": events,
        "idle_rt_per_s": idle,
        "runs": runs,
        "rss_mb": rss,
        "transactions_whole_pass": {"proxy": proxy, "pg_stat_database": pg_stat},
    }


def counting_pass(cfg: Config, stage: Stage) -> dict[str, Any]:
    rig = CountingRig(stage)
    try:
        result: dict[str, Any] = {"bare": count_bare(cfg, rig), "modes": {}}
        for events in cfg.count_modes:
            result["modes"][events] = count_engine(cfg, rig, events)
        return result
    finally:
        rig.proxies.close()
