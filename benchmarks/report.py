"""How the engine benchmark shows what it measured: tables on stdout, the same numbers as JSON.

It only reports: nothing here compares a number with a threshold.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

_TIMING = (
    f"{'shape':<7}{'size':>7} {'operation':<10}{'resources':>10}{'seconds':>10}"
    f"{'ms/res':>9}{'x hop':>8}{'x fan-in':>9}{'tasks':>8}  status"
)
_COUNTS = (
    f"{'shape':<7}{'size':>6} {'operation':<9}{'res':>6}{'sec':>7}"
    f"{'SQL':>6}{'PG RT':>7}{'xacts':>7}"
    f"{'broker':>8}{'syncpt':>7}{'results':>8}{'msgs':>6}{'events':>7}{'tasks':>7}  status"
)


def _out(line: str = "") -> None:
    print(line, flush=True)


def print_bare_timing(bare: dict[str, Any], cfg: Any) -> None:
    _out(
        f"\n== timing pass: {cfg.workers} worker(s), pool {cfg.pool} x{cfg.concurrency}, "
        f"task events {cfg.task_events}, no proxies"
    )
    runs = ", ".join(f"{ms:.3f}" for ms in bare["hop_ms_runs"])
    _out(
        f"bare Celery hop: {bare['hop_ms']:.3f} ms, median of {runs} "
        f"({bare['hops']}-hop relays, own queue, no result backend, no events)"
    )
    for width, seconds in bare["fan_in_s"].items():
        _out(
            f"bare fan-in {width:>6}: {seconds:8.3f} s, median "
            f"({seconds * 1000 / width:.3f} ms per leaf; root -> batch of {width} -> sink)"
        )


def print_bare_drift(after: dict[str, Any]) -> None:
    runs = ", ".join(f"{ms:.3f}" for ms in after["hop_ms_runs"])
    _out(f"bare Celery hop again after the engine runs: {after['hop_ms']:.3f} ms ({runs})")


def print_timing_header() -> None:
    _out("conv_tasks per resource (ms/res = seconds / resources; x hop = ms/res / bare hop):")
    _out(_TIMING)


def print_timing_row(row: dict[str, Any]) -> None:
    fan_in = f"{row['x_bare_fan_in']:>9.1f}" if "x_bare_fan_in" in row else f"{'':>9}"
    _out(
        f"{row['shape']:<7}{row['size']:>7} {row['operation']:<10}{row['resources']:>10}"
        f"{row['seconds']:>10.2f}{row['ms_per_resource']:>9.2f}{row['x_bare_hop']:>8.1f}"
        f"{fan_in}{row['tasks_published']:>8}  {row['status']}"
    )


def print_reads(reads: dict[str, Any], on: str) -> None:
    _out(
        f"stack list during a {reads['size']}-resource {reads['shape']} create "
        f"({reads['status']}) on {on}, ms from send to answer:"
    )
    for label in ("idle", "during_create"):
        got = reads[label]
        _out(
            f"  {label.replace('_', ' '):<14} p50 {got['p50_ms']:7.1f}  p99 {got['p99_ms']:7.1f}"
            f"  max {got['max_ms']:7.1f}  ({got['reads']} reads)"
        )


def print_rss(size: int, rss: list[float]) -> None:
    shown = ", ".join(f"{mb:.0f}" for mb in rss)
    _out(f"  worker RSS after size {size}: {shown} MB (max {max(rss, default=0):.0f})")


def print_bare_counts(bare: dict[str, Any]) -> None:
    hop, fan = bare["hop"], bare["fan_in"]
    per = hop["per_hop"]
    leads = ", ".join(
        f"{k} {v:.2f}"
        for k, v in sorted(hop["broker_turns_by_lead_per_hop"].items(), key=lambda kv: -kv[1])
    )
    _out("\n== counting pass: 1 solo worker behind counting proxies")
    _out(
        "idle worker, round trips per second: "
        + ", ".join(f"{k} {v:.2f}" for k, v in bare["idle_rt_per_s"].items())
    )
    _out(
        f"bare hop: {per['broker_rt']:.2f} broker round trips per hop "
        f"({hop['hops']} hops; by first command: {leads}); "
        f"{per['messages']:.2f} messages, {per['syncpoint_rt']:.3f} key-Redis round trips"
    )
    leaf = fan["per_leaf"]
    _out(
        f"bare fan-in of {fan['width']}: {leaf['broker_rt']:.2f} broker + "
        f"{leaf['syncpoint_rt']:.2f} key-Redis round trips per leaf, "
        f"{leaf['messages']:.3f} messages per leaf"
    )


def print_count_header(events: str, idle: dict[str, float]) -> None:
    _out(f"\n-- conv_tasks, task events {events}: per resource (tasks: node tasks published)")
    _out(
        "idle worker, round trips per second: " + ", ".join(f"{k} {v:.2f}" for k, v in idle.items())
    )
    _out(_COUNTS)


def print_count_row(row: dict[str, Any]) -> None:
    p = row["per_resource"]
    _out(
        f"{row['shape']:<7}{row['size']:>6} {row['operation']:<9}{row['resources']:>6}"
        f"{row['seconds']:>7.1f}{p['sql']:>6.2f}{p['pg_rt']:>7.2f}{p['xacts']:>7.2f}"
        f"{p['broker_rt']:>8.2f}"
        f"{p['syncpoint_rt']:>7.2f}{p['results_rt']:>8.3f}{p['messages']:>6.2f}"
        f"{p['events']:>7.2f}{row['node_tasks']:>7}  {row['status']}"
    )


def print_leads(runs: list[dict[str, Any]]) -> None:
    """Where the round trips go: each category's turns by their first command, per resource."""
    if not runs:
        return
    size = max(run["size"] for run in runs)
    _out(f"round trips per resource by first command (size {size}, all shapes):")
    for operation in ("create", "update", "delete"):
        chosen = [r for r in runs if r["size"] == size and r["operation"] == operation]
        resources = sum(r["resources"] for r in chosen)
        if not resources:
            continue
        for category in ("postgres", "broker", "syncpoint", "results"):
            leads: Counter[str] = Counter()
            for run in chosen:
                leads.update(run["raw"].get(category, {}).get("turns_by_lead", {}))
            shown = ", ".join(f"{k} {v / resources:.2f}" for k, v in leads.most_common(8))
            _out(f"  {operation:<7}{category:<10}{shown}")


def print_transaction_check(proxy: int, pg_stat: int) -> None:
    _out(
        f"transactions of the whole pass: {proxy} counted at the proxy (the xacts column), "
        f"{pg_stat} in pg_stat_database (less the benchmark's own polls)"
    )


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    _out(f"\nwrote {path}")
