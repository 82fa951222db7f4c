"""What this machine's resources sustain, measured for the capacity model in the same run.

- a core's instructions per second: a reference Python workload (dicts, f-strings, json, a
  sort: what a worker's own code does between round trips), its instructions counted by
  callgrind and its CPU time taken natively;
- PostgreSQL commits per second: pgbench's built-in `simple-update` script (an UPDATE by key,
  a SELECT and an INSERT per transaction) against the benchmark's private cluster;
- Redis commands per second: redis-benchmark's SET, LPUSH, RPOP and HSET, one command per
  round trip (no pipelining, as a worker sends them), against the private redis-server.

Each runs alone on the machine, between the benchmark's other steps.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

# The reference workload: `python -c REFERENCE N` prints the CPU seconds of its loop.
REFERENCE = """
import json, sys, time
def work(n):
    total = 0
    for i in range(n):
        d = {"id": i, "name": f"r{i}", "props": {"rev": i % 7, "tags": ["a", "b"]}}
        total += len(json.loads(json.dumps(d))["name"])
        total += sum(sorted([i % 5, i % 3, d["props"]["rev"]]))
    return total
n = int(sys.argv[1])
start = time.process_time()
work(n)
print(time.process_time() - start)
"""
REFERENCE_LOOPS = 20_000
PGBENCH_SCALE = 4
PGBENCH_CLIENTS = 8
PGBENCH_SECONDS = 6
REDIS_BENCH_TESTS = "set,lpush,rpop,hset"
REDIS_BENCH_CLIENTS = 8
REDIS_BENCH_REQUESTS = 100_000
REDIS_BENCH_DB = 3  # not the broker's, SyncPoints' or results' database


def _callgrind_instructions(args: list[str]) -> int:
    """Instructions a command executes under callgrind (its 'Collected' total)."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={Path(tmp) / 'out'}", *args],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
    found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total for {args[:2]}: {done.stderr[-400:]}")
    return int(found.group(1))


def core_instructions_per_s(loops: int = REFERENCE_LOOPS, runs: int = 5) -> dict[str, float]:
    """Instructions per CPU second of one core on the reference workload: callgrind's count of
    `loops` iterations (less the interpreter's start, counted at 0 iterations) over the loop's
    native CPU time (the least of `runs`, the least disturbed)."""
    python = [sys.executable, "-c", REFERENCE]
    seconds = min(
        float(subprocess.run([*python, str(loops)], capture_output=True, text=True, check=True)
              .stdout)
        for _ in range(runs)
    )  # fmt: skip
    instructions = _callgrind_instructions([*python, str(loops)]) - _callgrind_instructions(
        [*python, "0"]
    )
    return {
        "instructions": instructions,
        "cpu_seconds": seconds,
        "instructions_per_s": instructions / seconds,
    }


def pg_commits_per_s(pgbench: Path, port: int) -> dict[str, float]:
    """pgbench simple-update on a database of its own on the private cluster."""
    conn = ["-h", "127.0.0.1", "-p", str(port), "-U", "postgres"]
    createdb = pgbench.parent / "createdb"
    subprocess.run([str(createdb), *conn, "pgbench"], check=True, capture_output=True)
    subprocess.run(
        [str(pgbench), *conn, "-i", "-q", "-s", str(PGBENCH_SCALE), "pgbench"],
        check=True,
        capture_output=True,
        timeout=300,
    )
    done = subprocess.run(
        [str(pgbench), *conn, "-n", "-b", "simple-update", "-M", "prepared",
         "-c", str(PGBENCH_CLIENTS), "-j", "2", "-T", str(PGBENCH_SECONDS), "pgbench"],
        check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    found = re.search(r"tps = ([\d.]+)", done.stdout)
    if found is None:
        raise RuntimeError(f"pgbench printed no tps: {done.stdout[-400:]}")
    return {"commits_per_s": float(found.group(1)), "clients": PGBENCH_CLIENTS}


def redis_commands_per_s(port: int) -> dict[str, float]:
    """redis-benchmark's requests per second, the median over its tests."""
    done = subprocess.run(
        ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "--dbnum", str(REDIS_BENCH_DB),
         "-c", str(REDIS_BENCH_CLIENTS), "-n", str(REDIS_BENCH_REQUESTS),
         "-t", REDIS_BENCH_TESTS, "--csv"],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    rates = {}
    for line in done.stdout.splitlines():
        cells = [cell.strip('"') for cell in line.split(",")]
        if len(cells) >= 2 and cells[0] != "test":
            rates[cells[0]] = float(cells[1])
    if not rates:
        raise RuntimeError(f"redis-benchmark printed no rates: {done.stdout[-400:]}")
    return {"commands_per_s": median(rates.values()), **rates}
