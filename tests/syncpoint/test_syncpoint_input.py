"""Bad input to the SyncPoint store is refused with InvalidInput and writes nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import redis

from conv_tasks.errors import InvalidInput
from conv_tasks.syncpoint import SyncPointStore

T = "trav-1"
Snapshot = Callable[[], dict[str, object]]


@pytest.fixture
def prepared(store: SyncPointStore) -> SyncPointStore:
    store.create(T, {"n": ["a", "b"], "m": ["a"]})
    store.satisfy(T, "n", "a", {"v": 1})
    return store


def test_unknown_predecessor_writes_nothing(prepared: SyncPointStore, snapshot: Snapshot) -> None:
    before = snapshot()
    heartbeat = prepared.last_heartbeat(T)
    with pytest.raises(InvalidInput) as caught:
        prepared.satisfy(T, "n", "stranger", {"v": 2})
    assert caught.value.problems[0].path == "predecessor"
    assert "'n'" in str(caught.value) and "'stranger'" in str(caught.value)
    assert snapshot() == before
    assert prepared.last_heartbeat(T) == heartbeat
    assert prepared.waiting_for(T, "n") == frozenset({"b"})


@pytest.mark.parametrize(
    ("args", "path"),
    [
        (("", "n", "a", None), "traversal"),
        (("t{x}", "n", "a", None), "traversal"),
        ((T, "", "a", None), "node"),
        ((T, "n", "", None), "predecessor"),
        ((T, "n", 7, None), "predecessor"),
        ((T, 3, "b", None), "node"),
        ((T, "n", "b", {"when": object()}), "data"),
        ((T, "n", "b", {"x": math.nan}), "data"),
        ((T, "n", "b", {"x": {1, 2}}), "data"),
        ((T, "n", "b", ["not", "a", "mapping"]), "data"),
    ],
)
def test_malformed_satisfy_is_refused_before_redis(
    prepared: SyncPointStore, snapshot: Snapshot, args: tuple[Any, ...], path: str
) -> None:
    before = snapshot()
    with pytest.raises(InvalidInput) as caught:
        prepared.satisfy(*args)
    assert [p.path for p in caught.value.problems] == [path]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("traversal", "waits", "paths"),
    [
        ("", {"n": ["a"]}, ["traversal"]),
        (None, {"n": ["a"]}, ["traversal"]),
        ("a}b", {"n": ["a"]}, ["traversal"]),
        (T, {"n": []}, ["waits.n"]),
        (T, {"n": set()}, ["waits.n"]),
        (T, {"n": "ab"}, ["waits.n"]),
        (T, {"n": 5}, ["waits.n"]),
        (T, {"n": ["a", ""]}, ["waits.n"]),
        (T, {"n": ["a", 3]}, ["waits.n"]),
        (T, {"": ["a"]}, ["waits['']"]),
        (T, {4: ["a"]}, ["waits[4]"]),
        (T, [("n", ["a"])], ["waits"]),
        ("", {"ok": ["a"], "n": [], "": ["a"]}, ["traversal", "waits.n", "waits['']"]),
    ],
)
def test_malformed_create_writes_nothing(
    store: SyncPointStore, snapshot: Snapshot, traversal: Any, waits: Any, paths: list[str]
) -> None:
    # A valid node first: it must not be written either.
    if isinstance(waits, dict):
        waits = {"first": ["a"], **waits}
    with pytest.raises(InvalidInput) as caught:
        store.create(traversal, waits)
    assert [p.path for p in caught.value.problems] == paths
    assert snapshot() == {}


def test_every_problem_is_named_once(store: SyncPointStore) -> None:
    with pytest.raises(InvalidInput) as caught:
        store.create(T, {"web": [], "db": "x", "ok": ["a"]})
    message = str(caught.value)
    assert "2 problems" in message
    assert "waits.web" in message and "'web' waits for no predecessor" in message
    assert "waits.db" in message


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
