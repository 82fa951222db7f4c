"""Bad input to the SyncPoint store is refused with InvalidInput and writes nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import redis
from graphs import points

from conv_tasks.errors import InvalidInput
from conv_tasks.syncpoint import PointSpec, SyncPointStore

T = "trav-1"
Snapshot = Callable[[], dict[str, object]]


@pytest.fixture
def prepared(store: SyncPointStore) -> SyncPointStore:
    store.create(T, points({"a": ["n", "m"], "b": ["n"]}))
    store.finish(T, "a", {"v": 1})
    return store


@pytest.mark.parametrize(
    ("args", "settled", "path"),
    [
        (("", "b", None), (), "traversal"),
        (("t{x}", "b", None), (), "traversal"),
        ((T, "", None), (), "node"),
        ((T, 3, None), (), "node"),
        ((T, "b", {"when": object()}), (), "output"),
        ((T, "b", {"x": math.nan}), (), "output"),
        ((T, "b", {"x": {1, 2}}), (), "output"),
        ((T, "b", ["not", "a", "mapping"]), (), "output"),
        ((T, "b", None), ("",), "settled"),
        ((T, "b", None), (7,), "settled"),
    ],
)
def test_malformed_finish_is_refused_before_redis(
    prepared: SyncPointStore,
    snapshot: Snapshot,
    args: tuple[Any, ...],
    settled: tuple[Any, ...],
    path: str,
) -> None:
    before = snapshot()
    with pytest.raises(InvalidInput) as caught:
        prepared.finish(*args, settled=settled)
    assert [p.path for p in caught.value.problems] == [path]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("traversal", "specs", "paths"),
    [
        ("", {"n": PointSpec()}, ["traversal"]),
        (None, {"n": PointSpec()}, ["traversal"]),
        ("a}b", {"n": PointSpec()}, ["traversal"]),
        (T, {"n": ["a"]}, ["points.n"]),
        (T, {"n": PointSpec("ab")}, ["points.n.waits_for"]),  # type: ignore[arg-type]
        (T, {"n": PointSpec(("a", ""))}, ["points.n.waits_for"]),
        (T, {"n": PointSpec(("a", 3))}, ["points.n.waits_for"]),  # type: ignore[arg-type]
        (T, {"n": PointSpec((), ("elsewhere",))}, ["points.n.then"]),
        (T, {"": PointSpec()}, ["points['']"]),
        (T, {4: PointSpec()}, ["points[4]"]),
        (T, [("n", PointSpec())], ["points"]),
        ("", {"ok": PointSpec(), "n": 5, "": PointSpec()}, ["traversal", "points.n", "points['']"]),
    ],
)
def test_malformed_create_writes_nothing(
    store: SyncPointStore, snapshot: Snapshot, traversal: Any, specs: Any, paths: list[str]
) -> None:
    # A valid node first: it must not be written either.
    if isinstance(specs, dict):
        specs = {"first": PointSpec(("a",)), **specs}
    with pytest.raises(InvalidInput) as caught:
        store.create(traversal, specs)
    assert [p.path for p in caught.value.problems] == paths
    assert snapshot() == {}


def test_every_problem_is_named_once(store: SyncPointStore) -> None:
    with pytest.raises(InvalidInput) as caught:
        store.create(T, {"web": PointSpec((), ("nowhere",)), "db": "x", "ok": PointSpec()})
    message = str(caught.value)
    assert "2 problems" in message
    assert "points.web.then" in message and "'nowhere'" in message
    assert "points.db" in message


@pytest.mark.parametrize(
    ("prefix", "ttl", "path"),
    [("", 10, "prefix"), ("a{b}", 10, "prefix"), ("p", 0, "ttl"), ("p", -1, "ttl"),
     ("p", math.inf, "ttl"), ("p", "10", "ttl"), ("p", True, "ttl")],
)  # fmt: skip
def test_bad_store_settings(redis_client: redis.Redis, prefix: str, ttl: Any, path: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        SyncPointStore(redis_client, prefix=prefix, ttl=ttl)
    assert [p.path for p in caught.value.problems] == [path]


def test_bad_traversal_for_drop_and_heartbeat(store: SyncPointStore, snapshot: Snapshot) -> None:
    with pytest.raises(InvalidInput):
        store.drop("")
    with pytest.raises(InvalidInput):
        store.heartbeat("x}")
    assert snapshot() == {}
