"""SyncPoints against the real Redis: counting, merged data, duplicates, missing points, drop."""

from __future__ import annotations

import time
from collections.abc import Callable

import redis

from conv_tasks.syncpoint import SatisfyResult, SyncPointStore

T = "trav-1"
Snapshot = Callable[[], dict[str, object]]


def test_satisfy_in_order_pending_then_completed(store: SyncPointStore) -> None:
    store.create(T, {"c": ["a", "b"], "b": ["a"]})
    assert store.waiting_for(T, "c") == frozenset({"a", "b"})
    assert store.data(T, "c") == {}

    first = store.satisfy(T, "c", "a", {"id": "A-1"})
    assert first == SatisfyResult("pending", None, None)
    assert not first.complete
    assert not first.should_trigger("a")
    assert store.waiting_for(T, "c") == frozenset({"b"})
    assert store.data(T, "c") == {"a": {"id": "A-1"}}

    last = store.satisfy(T, "c", "b", {"id": "B-1", "n": [1, 2]})
    assert last.outcome == "completed"
    assert last.completed_by == "b"
    assert last.complete
    assert last.should_trigger("b")
    assert last.data == {"a": {"id": "A-1"}, "b": {"id": "B-1", "n": [1, 2]}}
    assert store.waiting_for(T, "c") == frozenset()
    assert store.data(T, "c") == last.data

    # The other point of the traversal is untouched by c's satisfies.
    assert store.waiting_for(T, "b") == frozenset({"a"})
    only = store.satisfy(T, "b", "a")
    assert (only.outcome, only.completed_by, only.data) == ("completed", "a", {"a": {}})


def test_duplicate_counts_once_and_keeps_first_data(store: SyncPointStore) -> None:
    store.create(T, {"n": ["a", "b", "c"]})
    assert store.satisfy(T, "n", "a", {"v": 1}).outcome == "pending"
    again = store.satisfy(T, "n", "a", {"v": 2})
    assert again == SatisfyResult("duplicate", None, None)
    assert not again.should_trigger("a")
    assert store.waiting_for(T, "n") == frozenset({"b", "c"})
    assert store.satisfy(T, "n", "b", {"v": 3}).outcome == "pending"
    done = store.satisfy(T, "n", "c", {"v": 4})
    assert done.outcome == "completed"
    assert done.data == {"a": {"v": 1}, "b": {"v": 3}, "c": {"v": 4}}


def test_completer_duplicate_triggers_again_others_do_not(store: SyncPointStore) -> None:
    store.create(T, {"n": ["a", "b"]})
    store.satisfy(T, "n", "a", {"x": "a"})
    done = store.satisfy(T, "n", "b", {"x": "b"})
    assert done.should_trigger("b")

    # The completer redelivered (it may have died before enqueueing n).
    redelivered = store.satisfy(T, "n", "b", {"x": "other"})
    assert redelivered.outcome == "duplicate"
    assert redelivered.completed_by == "b"
    assert redelivered.complete
    assert redelivered.should_trigger("b")
    assert redelivered.data == {"a": {"x": "a"}, "b": {"x": "b"}}

    # A predecessor that did not complete it gets no trigger and no data.
    other = store.satisfy(T, "n", "a", {"x": "a"})
    assert other == SatisfyResult("duplicate", "b", None)
    assert other.complete
    assert not other.should_trigger("a")
    # Asking as another predecessor never turns a duplicate into a trigger.
    assert not redelivered.should_trigger("a")


def test_missing_point(store: SyncPointStore, snapshot: Snapshot) -> None:
    result = store.satisfy(T, "nowhere", "a", {"v": 1})
    assert result == SatisfyResult("missing", None, None)
    assert not result.complete
    assert not result.should_trigger("a")
    assert store.data(T, "nowhere") is None
    assert store.waiting_for(T, "nowhere") is None
    # A miss is not progress: no heartbeat, no keys at all.
    assert store.last_heartbeat(T) is None
    assert snapshot() == {}


def test_drop_removes_one_traversal_only(
    store: SyncPointStore, redis_client: redis.Redis, prefix: str
) -> None:
    waits = {f"n{i}": ["root"] for i in range(2500)}
    store.create("keep", {"x": ["y"]})
    store.create("gone", waits)
    # Traversal names that extend "gone" or are glob patterns must not be swept up.
    store.create("gone-2", {"x": ["y"]})
    store.create("g*", {"x": ["y"]})
    store.heartbeat("gone")
    store.heartbeat("keep")

    assert store.drop("gone") == 2500 + 1
    assert list(redis_client.scan_iter(match=f"{prefix}:*{{gone}}*")) == []
    assert store.waiting_for("gone", "n0") is None
    assert store.satisfy("gone", "n0", "root").outcome == "missing"
    assert store.last_heartbeat("gone") is None
    for other in ("keep", "gone-2", "g*"):
        assert store.waiting_for(other, "x") == frozenset({"y"})
    assert store.last_heartbeat("keep") is not None
    assert store.drop("g*") == 1
    assert store.waiting_for("gone-2", "x") == frozenset({"y"})
    assert store.drop("gone") == 0


def test_ttl_is_set_and_refreshed(redis_client: redis.Redis, prefix: str) -> None:
    store = SyncPointStore(redis_client, prefix=prefix, ttl=100)
    store.create(T, {"n": ["a", "b"]})
    key = f"{prefix}:sp:{{{T}}}:n"
    assert 99_000 < redis_client.pttl(key) <= 100_000
    redis_client.pexpire(key, 5_000)
    store.satisfy(T, "n", "a")
    assert 99_000 < redis_client.pttl(key) <= 100_000
    assert 99_000 < redis_client.pttl(f"{prefix}:hb:{{{T}}}") <= 100_000


def test_keys_expire_after_ttl(redis_client: redis.Redis, prefix: str) -> None:
    store = SyncPointStore(redis_client, prefix=prefix, ttl=0.3)
    store.create(T, {"n": ["a", "b"]})
    store.satisfy(T, "n", "a")
    assert store.waiting_for(T, "n") == frozenset({"b"})
    time.sleep(0.5)
    assert store.waiting_for(T, "n") is None
    assert store.last_heartbeat(T) is None
    assert store.satisfy(T, "n", "b").outcome == "missing"


def test_heartbeat_uses_server_time_and_moves(
    store: SyncPointStore, redis_client: redis.Redis
) -> None:
    assert store.last_heartbeat(T) is None
    store.heartbeat(T)
    seconds, micros = redis_client.time()
    first = store.last_heartbeat(T)
    assert first is not None
    assert 0 <= seconds + micros / 1e6 - first < 1.0

    time.sleep(0.02)
    store.create(T, {"n": ["a", "b"]})
    store.satisfy(T, "n", "a")
    second = store.last_heartbeat(T)
    assert second is not None and second > first

    time.sleep(0.02)
    store.satisfy(T, "n", "a")  # a redelivered task is still a live worker
    third = store.last_heartbeat(T)
    assert third is not None and third > second

    time.sleep(0.02)
    store.heartbeat(T)
    fourth = store.last_heartbeat(T)
    assert fourth is not None and fourth > third


def test_works_with_a_decoding_client(redis_url: str, prefix: str) -> None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        store = SyncPointStore(client, prefix=prefix)
        store.create(T, {"n": ["a", "b"]})
        assert store.satisfy(T, "n", "a", {"k": "é"}).outcome == "pending"
        assert store.waiting_for(T, "n") == frozenset({"b"})
        done = store.satisfy(T, "n", "b")
        assert done.data == {"a": {"k": "é"}, "b": {}}
        assert store.data(T, "n") == done.data
        assert store.last_heartbeat(T) is not None
        assert store.drop(T) == 2
    finally:
        client.close()


def test_odd_names_round_trip(store: SyncPointStore) -> None:
    preds = ["a:b", "d:x", "p:y", "remaining", "completer", "ünï cødé", "*", "[x]"]
    store.create(T, {"node:with:colons": preds})
    for pred in preds[:-1]:
        assert store.satisfy(T, "node:with:colons", pred, {"me": pred}).outcome == "pending"
    assert store.waiting_for(T, "node:with:colons") == frozenset({"[x]"})
    done = store.satisfy(T, "node:with:colons", "[x]", {"me": "[x]"})
    assert done.outcome == "completed"
    assert done.data == {p: {"me": p} for p in preds}


def test_create_redefines_a_point(store: SyncPointStore) -> None:
    store.create(T, {"n": ["a", "b"]})
    store.satisfy(T, "n", "a")
    store.create(T, {"n": ["c"]})
    assert store.waiting_for(T, "n") == frozenset({"c"})
    assert store.data(T, "n") == {}
