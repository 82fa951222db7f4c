"""Time plan_traversal on 10,000-resource stacks of several shapes.

Run as `python benchmarks/bench_planner.py`. Each case prints the planning time and its ratio
to a baseline measured in the same run: building a plain dict-of-sets adjacency of the same
template edges. The ratio shows whether planning stays linear (a roughly constant ratio across
shapes) independently of how fast the machine is. Never touches a database or a network.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conv_tasks.graph import ExistingVersion, plan_traversal

SIZE = 10_000
REPEATS = 3
Template = dict[str, frozenset[str]]


def chain(names: list[str]) -> Template:
    return {name: frozenset(names[i - 1 : i]) for i, name in enumerate(names)}


def fan(names: list[str]) -> Template:
    root, middle, sink = names[0], names[1:-1], names[-1]
    template = {root: frozenset()}
    template.update({name: frozenset({root}) for name in middle})
    template[sink] = frozenset(middle)
    return template


def random_dag(names: list[str]) -> Template:
    rng = random.Random(1234)
    return {
        name: frozenset(rng.sample(names[:i], min(i, rng.randint(0, 4))))
        for i, name in enumerate(names)
    }


def rows_for(template: Template, *, reverse: bool = False) -> list[ExistingVersion]:
    """A head row per resource; with reverse=True each old row depended the other way round,
    so every soft edge conflicts with the template."""
    required_by: dict[str, set[str]] = {name: set() for name in template}
    for name, requires in template.items():
        for required in requires:
            required_by[required].add(name)
    return [
        ExistingVersion(i, name, 1, frozenset(required_by[name] if reverse else requires), True)
        for i, (name, requires) in enumerate(template.items())
    ]


def best_of(action: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def baseline(template: Template) -> dict[str, set[str]]:
    adjacency: dict[str, set[str]] = {name: set() for name in template}
    for name, requires in template.items():
        for required in requires:
            adjacency[required].add(name)
    return adjacency


def main() -> int:
    names = [f"res-{i:05d}" for i in range(SIZE)]
    cases = [
        ("chain, no rows", chain(names), False, False),
        ("chain, update", chain(names), True, False),
        ("fan-out/fan-in", fan(names), True, False),
        ("random DAG (seed 1234)", random_dag(names), True, False),
        ("random DAG, reversed rows", random_dag(names), True, True),
    ]
    for label, template, with_rows, reverse in cases:
        rows = rows_for(template, reverse=reverse) if with_rows else []
        edges = sum(len(requires) for requires in template.values())
        base = best_of(lambda t=template: baseline(t))
        took = best_of(lambda r=rows, t=template: plan_traversal(r, t))
        print(
            f"{label:28s} {SIZE} resources {edges:6d} deps  "
            f"plan {took:.3f}s  baseline {base:.4f}s  ratio {took / base:6.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
