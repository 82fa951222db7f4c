"""SyncPoints against the real Redis: finishing nodes, merged inputs, repeats, settled nodes."""

from __future__ import annotations

import time
from collections.abc import Callable

import redis
from graphs import points

from conv_tasks.syncpoint import STACK_POINT, FinishOutcome, Handoff, PointSpec, SyncPointStore

T = "trav-1"
Snapshot = Callable[[], dict[str, object]]


def triggered(handoff: Handoff) -> dict[str, object]:
    return dict(handoff.triggered)


def test_finish_completes_successors_with_every_input(store: SyncPointStore) -> None:
    store.create(T, points({"a": ["b", "c"], "b": ["c"]}))
    assert store.waiting_for(T, "c") == frozenset({"a", "b"})

    first = store.finish(T, "a", {"id": "A-1"})
    assert first.outcome == FinishOutcome.OK
    assert triggered(first) == {"b": {"a": {"id": "A-1"}}}
    assert first.stack_input is None and first.missing == ()
    assert store.waiting_for(T, "c") == frozenset({"b"})
    assert store.data(T, "c") == {"a": {"id": "A-1"}}

    last = store.finish(T, "b", {"id": "B-1", "n": [1, 2]})
    assert triggered(last) == {"c": {"a": {"id": "A-1"}, "b": {"id": "B-1", "n": [1, 2]}}}
    assert store.waiting_for(T, "c") == frozenset()

    done = store.finish(T, "c")
    assert done.triggered == () and done.stack_input == {"c": {}}


def test_a_repeat_counts_once_and_keeps_the_first_output(store: SyncPointStore) -> None:
    store.create(T, points({"a": ["n"], "b": ["n"], "c": ["n"]}))
    assert store.finish(T, "a", {"v": 1}).triggered == ()
    again = store.finish(T, "a", {"v": 2})
    assert again.outcome == FinishOutcome.REPEAT and again.triggered == ()
    assert store.waiting_for(T, "n") == frozenset({"b", "c"})
    store.finish(T, "b", {"v": 3})
    done = store.finish(T, "c", {"v": 4})
    assert triggered(done) == {"n": {"a": {"v": 1}, "b": {"v": 3}, "c": {"v": 4}}}


def test_the_completer_repeats_its_trigger_until_the_successor_finishes(
    store: SyncPointStore,
) -> None:
    store.create(T, points({"a": ["n"], "b": ["n"]}))
    store.finish(T, "a", {"x": "a"})
    assert "n" in triggered(store.finish(T, "b", {"x": "b"}))

    # The completer redelivered (it may have died before enqueueing n): trigger again.
    repeat = store.finish(T, "b", {"x": "other"})
    assert repeat.outcome == FinishOutcome.REPEAT
    assert triggered(repeat) == {"n": {"a": {"x": "a"}, "b": {"x": "b"}}}
    # A predecessor that did not complete it never triggers it.
    assert store.finish(T, "a", {"x": "a"}).triggered == ()

    # Once n has finished, a repeat of its completer costs nothing downstream.
    store.finish(T, "n")
    assert store.finish(T, "b").triggered == ()


def test_a_repeat_does_not_trigger_a_successor_that_has_started(store: SyncPointStore) -> None:
    store.create(T, points({"a": ["n", "m"]}))
    assert set(triggered(store.finish(T, "a"))) == {"m", "n"}
    # n polls its action under way: from then on it keeps itself going.
    store.heartbeat(T, "n")
    assert set(triggered(store.finish(T, "a"))) == {"m"}
    assert store.waiting_for(T, "n") == frozenset()


def test_a_heartbeat_for_a_node_without_a_point_writes_no_point(
    store: SyncPointStore, snapshot: Snapshot
) -> None:
    store.heartbeat(T, "gone")
    assert store.last_heartbeat(T) is not None
    assert all(":sp:" not in key for key in snapshot())


def test_the_leaves_complete_the_stack_point_and_its_completer_repeats_it(
    store: SyncPointStore,
) -> None:
    store.create(T, points({"a": ["x", "y"]}))
    store.finish(T, "a")
    assert store.finish(T, "x", {"failed": ["x: boom"]}).stack_input is None
    last = store.finish(T, "y", {"ref": "Y"})
    assert last.stack_input == {"x": {"failed": ["x: boom"]}, "y": {"ref": "Y"}}
    # Finishing the traversal is idempotent, so the trigger is never lost to a crash.
    assert store.finish(T, "y").stack_input == last.stack_input
    assert store.finish(T, "x").stack_input is None


def test_settled_nodes_pass_on_without_a_task(store: SyncPointStore) -> None:
    # An update chain u1 -> u2 with clean-ups c2 -> c1 after each, as the planner builds it.
    store.create(T, points({"u1": ["u2", "c1"], "u2": ["c2"], "c2": ["c1"]}))
    first = store.finish(T, "u1", {"ref": "1"}, settled=["c1"])
    assert triggered(first) == {"u2": {"u1": {"ref": "1"}}}
    last = store.finish(T, "u2", {"ref": "2"}, settled=["c2"])
    # c2 completes and is settled: it satisfies c1, settled too, which completes the stack.
    assert last.triggered == ()
    assert last.stack_input == {"c1": {}}
    assert store.waiting_for(T, "c1") == frozenset()
    # Repeating u2 walks the settled nodes again and hands the stack's trigger on again.
    assert store.finish(T, "u2").stack_input == {"c1": {}}


def test_settled_nodes_hand_on_their_predecessors_failures(store: SyncPointStore) -> None:
    store.create(T, points({"u1": ["u2", "c1"], "u2": ["c2"], "c2": ["c1"]}))
    store.finish(T, "u1", {"failed": ["u1: boom"]}, settled=["c1"])
    done = store.finish(T, "u2", {"failed": ["u1: boom"]}, settled=["c2"])
    assert done.stack_input == {"c1": {"failed": ["u1: boom"]}}


def test_a_settled_node_that_is_not_complete_waits_for_its_other_predecessors(
    store: SyncPointStore,
) -> None:
    store.create(T, points({"u": ["c"], "d": ["c"]}))
    assert store.finish(T, "u", settled=["c"]).stack_input is None
    assert store.waiting_for(T, "c") == frozenset({"d"})
    done = store.finish(T, "d", {"ref": "d"})
    assert done.triggered == () and done.stack_input == {"c": {}}


def test_a_node_without_a_point_writes_nothing(store: SyncPointStore, snapshot: Snapshot) -> None:
    result = store.finish(T, "nowhere", {"v": 1})
    assert result == Handoff(FinishOutcome.MISSING)
    assert store.data(T, "nowhere") is None
    assert store.waiting_for(T, "nowhere") is None
    # A miss is not progress: no heartbeat, no keys at all.
    assert store.last_heartbeat(T) is None
    assert snapshot() == {}


def test_a_lost_successor_point_is_reported(
    store: SyncPointStore, redis_client: redis.Redis, prefix: str
) -> None:
    store.create(T, points({"a": ["b", "c"]}))
    redis_client.delete(f"{prefix}:sp:{{{T}}}:b")
    result = store.finish(T, "a")
    assert result.missing == ("b",)
    assert triggered(result) == {"c": {"a": {}}}


def test_drop_removes_one_traversal_only(
    store: SyncPointStore, redis_client: redis.Redis, prefix: str
) -> None:
    store.create("keep", points({"y": ["x"]}))
    store.create("gone", points({"root": [f"n{i}" for i in range(2500)]}))
    # Traversal names that extend "gone" or are glob patterns must not be swept up.
    store.create("gone-2", points({"y": ["x"]}))
    store.create("g*", points({"y": ["x"]}))
    store.heartbeat("gone")
    store.heartbeat("keep")

    assert store.drop("gone") == 2500 + 3  # the nodes, root, the stack's point, the heartbeat
    assert list(redis_client.scan_iter(match=f"{prefix}:*{{gone}}*")) == []
    assert store.waiting_for("gone", "n0") is None
    assert store.finish("gone", "root").outcome == FinishOutcome.MISSING
    assert store.last_heartbeat("gone") is None
    for other in ("keep", "gone-2", "g*"):
        assert store.waiting_for(other, "x") == frozenset({"y"})
    assert store.last_heartbeat("keep") is not None
    assert store.drop("g*") == 3
    assert store.waiting_for("gone-2", "x") == frozenset({"y"})
    assert store.drop("gone") == 0


def test_ttl_is_set_and_refreshed(redis_client: redis.Redis, prefix: str) -> None:
    store = SyncPointStore(redis_client, prefix=prefix, ttl=100)
    store.create(T, points({"a": ["n"], "b": ["n"]}))
    key = f"{prefix}:sp:{{{T}}}:n"
    assert 99_000 < redis_client.pttl(key) <= 100_000
    redis_client.pexpire(key, 5_000)
    store.finish(T, "a")
    assert 99_000 < redis_client.pttl(key) <= 100_000
    assert 99_000 < redis_client.pttl(f"{prefix}:hb:{{{T}}}") <= 100_000


def test_keys_expire_after_ttl(redis_client: redis.Redis, prefix: str) -> None:
    store = SyncPointStore(redis_client, prefix=prefix, ttl=0.3)
    store.create(T, points({"a": ["n"], "b": ["n"]}))
    store.finish(T, "a")
    assert store.waiting_for(T, "n") == frozenset({"b"})
    time.sleep(0.5)
    assert store.waiting_for(T, "n") is None
    assert store.last_heartbeat(T) is None
    assert store.finish(T, "b").outcome == FinishOutcome.MISSING


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
    store.create(T, points({"a": ["n"], "b": ["n"]}))
    store.finish(T, "a")
    second = store.last_heartbeat(T)
    assert second is not None and second > first

    time.sleep(0.02)
    store.finish(T, "a")  # a redelivered task is still a live worker
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
        store.create(T, points({"a": ["n"], "b": ["n"]}))
        assert store.finish(T, "a", {"k": "é"}).triggered == ()
        assert store.waiting_for(T, "n") == frozenset({"b"})
        done = store.finish(T, "b")
        assert triggered(done) == {"n": {"a": {"k": "é"}, "b": {}}}
        assert store.data(T, "n") == {"a": {"k": "é"}, "b": {}}
        assert store.last_heartbeat(T) is not None
        assert store.drop(T) == 5
    finally:
        client.close()


def test_odd_names_round_trip(store: SyncPointStore) -> None:
    preds = ["a:b", "d:x", "p:y", "remaining", "completer", "next", "ünï cødé", "*", '"q"']
    store.create(T, points({pred: ["node:with:colons"] for pred in preds}))
    for pred in preds[:-1]:
        assert store.finish(T, pred, {"me": pred}).triggered == ()
    assert store.waiting_for(T, "node:with:colons") == frozenset({'"q"'})
    done = store.finish(T, '"q"', {"me": '"q"'})
    assert triggered(done) == {"node:with:colons": {p: {"me": p} for p in preds}}


def test_create_redefines_a_point(store: SyncPointStore) -> None:
    store.create(T, points({"a": ["n"], "b": ["n"]}))
    store.finish(T, "a")
    store.create(T, {"c": PointSpec((), ("n",)), "n": PointSpec(("c",), ())})
    assert store.waiting_for(T, "n") == frozenset({"c"})
    assert store.data(T, "n") == {}
    assert STACK_POINT not in triggered(store.finish(T, "c"))
