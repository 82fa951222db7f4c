"""find_cycle: finds one cycle in order, or None; never recurses."""

from __future__ import annotations

from conv_tasks.graph import find_cycle


def _is_cycle(deps: dict[str, list[str]], cycle: list[str]) -> bool:
    return all(cycle[(i + 1) % len(cycle)] in deps[name] for i, name in enumerate(cycle))


def test_self_loop() -> None:
    assert find_cycle({"a": ["a"]}) == ["a"]


def test_no_cycle() -> None:
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None
    assert find_cycle({}) is None


def test_missing_keys_have_no_requirements() -> None:
    assert find_cycle({"a": ["b"], "c": ["b"]}) is None


def test_small_cycle_in_order() -> None:
    deps = {"x": ["a"], "a": ["b"], "b": ["c"], "c": ["a"]}
    cycle = find_cycle(deps)
    assert cycle is not None
    assert sorted(cycle) == ["a", "b", "c"]
    assert _is_cycle(deps, cycle)


def test_long_cycle() -> None:
    n = 10_000
    deps = {f"r{i}": [f"r{(i + 1) % n}"] for i in range(n)}
    cycle = find_cycle(deps)
    assert cycle is not None
    assert len(cycle) == n
    assert _is_cycle(deps, cycle)


def test_long_chain_without_recursion_error() -> None:
    n = 10_000
    deps = {f"r{i}": [f"r{i - 1}"] if i else [] for i in range(n)}
    assert find_cycle(deps) is None


def test_cycle_at_end_of_long_chain() -> None:
    n = 10_000
    deps: dict[str, list[str]] = {f"r{i}": [f"r{i + 1}"] for i in range(n)}
    deps[f"r{n}"] = ["r9998"]
    cycle = find_cycle(deps)
    assert cycle is not None
    assert sorted(cycle) == ["r10000", "r9998", "r9999"]
    assert _is_cycle(deps, cycle)


def test_cycle_only_reachable_later() -> None:
    deps = {"a": ["b"], "b": [], "c": ["d"], "d": ["c"]}
    cycle = find_cycle(deps)
    assert cycle is not None
    assert sorted(cycle) == ["c", "d"]
