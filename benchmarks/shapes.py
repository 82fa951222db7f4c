"""Stack templates of OS::Heat::None resources in the shapes the engine benchmark walks.

Every resource carries `properties: {rev: N}`: OS::Heat::None accepts any
properties and is always updated in place, so the template of revision 2
changes every resource of the revision-1 stack in place.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Resources = dict[str, dict[str, Any]]


def _none(rev: int, depends_on: list[str] | None = None) -> dict[str, Any]:
    resource: dict[str, Any] = {"type": "OS::Heat::None", "properties": {"rev": rev}}
    if depends_on:
        resource["depends_on"] = depends_on
    return resource


def chain(n: int, rev: int) -> Resources:
    """r0 <- r1 <- ... <- r(n-1): one node at a time."""
    return {f"r{i}": _none(rev, [f"r{i - 1}"] if i else None) for i in range(n)}


def fan(n: int, rev: int) -> Resources:
    """1 -> N -> 1: a root, n-2 middles that depend on it, a sink that depends on all of them."""
    middle = [f"m{i}" for i in range(max(1, n - 2))]
    resources = {"root": _none(rev)}
    resources |= {name: _none(rev, ["root"]) for name in middle}
    resources["sink"] = _none(rev, middle)
    return resources


def random_dag(n: int, rev: int, seed: int = 7) -> Resources:
    """Each resource depends on up to three random earlier ones (the same graph every run)."""
    rng = random.Random(seed)
    resources: Resources = {}
    for i in range(n):
        deps = sorted({f"r{rng.randrange(i)}" for _ in range(min(i, 3))}) if i else []
        resources[f"r{i}"] = _none(rev, deps)
    return resources


SHAPES: dict[str, Callable[[int, int], Resources]] = {
    "chain": chain,
    "fan": fan,
    "random": random_dag,
}


def template(shape: str, size: int, rev: int) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": SHAPES[shape](size, rev)}
