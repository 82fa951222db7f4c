"""CLI start-up cost of the libraries conv_tasks uses, or chose not to, for drawing and settings.

Each case is a fresh `python -c` that imports what a CLI command loads
(conv_tasks.cli.main and the Celery app, which reads the settings) plus one
library; the median of --runs start-ups is compared with the imports alone.
Each start-up is timed as the CPU time (user + system) the child used, which
other processes on a busy machine disturb far less than wall time. Each case
also reports what `python -X importtime` says the library's own imports took
(the fastest of --runs): only what the library adds on top of conv_tasks.
A library that is not installed is reported as such (pydantic-settings and
environs are not dependencies: `pip install` them to measure them). Never
imports rich or a settings library into this process.

    .venv/bin/python benchmarks/bench_startup.py --runs 21
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

BASE = "import conv_tasks.cli.main, conv_tasks.tasks.app"
CASES = (
    ("rich (table, live line)", "rich", "import rich.console, rich.table, rich.live"),
    ("pydantic-settings", "pydantic_settings", "import pydantic_settings"),
    ("environs", "environs", "import environs"),
)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def cpu_ms(command: list[str]) -> float:
    """The CPU time, in ms, one run of `command` used."""
    before = _children_cpu()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (_children_cpu() - before) * 1000


def rounds(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """`runs` rounds, each running every command once: a machine that gets busier or quieter
    during the benchmark then shifts every command alike, and differences within a round
    cancel the shift."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(cpu_ms(command))
    return times


def library_import_ms(statement: str, runs: int) -> float:
    """The fastest of `runs` -X importtime readings of what `statement` imports after BASE."""
    best = float("inf")
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"{BASE}; {statement}"],
            capture_output=True,
            text=True,
            check=True,
        )
        total, after_base = 0, False
        for line in done.stderr.splitlines():
            _, cumulative, name = line.split("|")
            if not name.startswith(" ") or name.startswith("  "):
                continue  # only modules the -c statement imported itself
            if name.strip() == "conv_tasks.tasks.app":
                after_base = True
            elif after_base and cumulative.strip().isdigit():
                total += int(cumulative)
        best = min(best, total / 1000)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args().runs
    python = sys.executable
    commands = {"bare": [python, "-c", "pass"], "base": [python, "-c", BASE]}
    cases = [case for case in CASES if importlib.util.find_spec(case[1]) is not None]
    for label, _, statement in cases:
        commands[label] = [python, "-c", f"{BASE}; {statement}"]
    cli = shutil.which("conv-tasks", path=str(Path(python).parent))
    if cli:
        commands["help"] = [cli, "--help"]
    times = rounds(commands, runs)
    base = statistics.median(times["base"])
    print(f"median CPU time of {runs} runs each")
    print(f"python alone                      {statistics.median(times['bare']):6.0f} ms")
    print(f"a CLI command's imports           {base:6.0f} ms")
    for label, module, statement in CASES:
        if (label, module, statement) not in cases:
            print(f"  + {label:<30} not installed")
            continue
        extra = statistics.median(a - b for a, b in zip(times[label], times["base"], strict=True))
        own = library_import_ms(statement, runs)
        print(
            f"  + {label:<30} {statistics.median(times[label]):6.0f} ms  "
            f"(+{extra:.0f} ms, +{extra / base:.0%}; its imports: {own:.0f} ms)"
        )
    if cli:
        print(f"conv-tasks --help                 {statistics.median(times['help']):6.0f} ms")


if __name__ == "__main__":
    main()
