"""SyncPointStore: create, satisfy, inspect and drop the SyncPoints of a traversal in Redis.

The one place that writes SyncPoint keys. Satisfying is one Lua script
(satisfy.lua), so counting a predecessor, detecting its duplicates and
handing out the merged data happen in a single atomic step. Input is
validated before Redis is touched, and bad input writes nothing. This module
must never decide what a node does with its trigger: it only says who must
trigger it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from importlib.resources import files
from typing import Any

import redis

from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.syncpoint.keys import KeyLayout, check_name, check_traversal
from conv_tasks.syncpoint.result import OUTCOMES, SatisfyResult

# Nodes per pipelined round trip in create(): big enough to be fast, small
# enough that one reply does not hold a whole large graph in memory.
_CREATE_BATCH = 1000
# Keys per SCAN step and per UNLINK in drop().
_DROP_BATCH = 1000
_EXPECTED = "p:"
_DATA = "d:"


def _text(value: bytes | str) -> str:
    """Redis replies are bytes unless the client decodes them; accept both."""
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _load_script(client: redis.Redis, name: str) -> Any:
    source = (files("conv_tasks.syncpoint") / name).read_text(encoding="utf-8")
    return client.register_script(source)


class SyncPointStore:
    """The SyncPoints of every traversal, under one key prefix of one Redis database."""

    def __init__(
        self, client: redis.Redis, *, prefix: str = "conv", ttl: float = 7 * 24 * 3600
    ) -> None:
        problems: list[Problem] = []
        if check_name(prefix, "prefix", "the key prefix", problems) and (
            "{" in prefix or "}" in prefix
        ):
            problems.append(Problem("prefix", f"the key prefix {prefix!r} may not hold braces."))
        if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
            problems.append(Problem("ttl", f"the TTL must be a number of seconds, got {ttl!r}."))
        elif ttl <= 0:
            problems.append(Problem("ttl", f"the TTL must be greater than zero, got {ttl!r}."))
        if problems:
            raise InvalidInput(problems, what="SyncPoint store settings")
        self._redis = client
        self._keys = KeyLayout(prefix)
        self._ttl_ms = max(1, round(ttl * 1000))
        # Registered once: redis-py sends EVALSHA and reloads the script by
        # itself if Redis has forgotten it (a restart).
        self._satisfy = _load_script(client, "satisfy.lua")
        self._heartbeat = _load_script(client, "heartbeat.lua")

    @property
    def prefix(self) -> str:
        return self._keys.prefix

    def create(self, traversal: str, waits: Mapping[str, Iterable[str]]) -> None:
        """Create one SyncPoint per node, waiting for the given predecessors.

        Everything is validated before anything is written. A node's point is
        (re)defined from scratch, so call this only for a traversal nobody
        satisfies yet: a fresh traversal ID.
        """
        prepared = _validate_waits(traversal, waits)
        for start in range(0, len(prepared), _CREATE_BATCH):
            # Each batch is one MULTI/EXEC: no reader sees a half-built point.
            pipe = self._redis.pipeline(transaction=True)
            for node, predecessors in prepared[start : start + _CREATE_BATCH]:
                key = self._keys.point(traversal, node)
                fields: dict[str, str | int] = {f"{_EXPECTED}{p}": 1 for p in predecessors}
                fields["remaining"] = len(predecessors)
                pipe.delete(key)
                pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
                pipe.pexpire(key, self._ttl_ms)
            pipe.execute()

    def satisfy(
        self,
        traversal: str,
        node: str,
        predecessor: str,
        data: Mapping[str, Any] | None = None,
    ) -> SatisfyResult:
        """Record that `predecessor` of `node` finished, with the data it produced.

        Atomic and idempotent: a predecessor counts once however often it
        calls, and exactly one call ever sees "completed". No data is stored
        as {}. Refreshes the point's TTL and the traversal's heartbeat.
        """
        problems: list[Problem] = []
        check_traversal(traversal, problems)
        check_name(node, "node", "the node name", problems)
        check_name(predecessor, "predecessor", "the predecessor name", problems)
        encoded = _encode_data(data, problems)
        if problems:
            raise InvalidInput(problems, what="SyncPoint satisfy")
        reply = self._satisfy(
            keys=[self._keys.point(traversal, node), self._keys.heartbeat(traversal)],
            args=[predecessor, encoded, self._ttl_ms],
        )
        outcome, completer, *pairs = (_text(part) for part in reply)
        if outcome == "unexpected":
            raise InvalidInput(
                [
                    Problem(
                        "predecessor",
                        f"node {node!r} of traversal {traversal!r} does not wait for "
                        f"{predecessor!r}; nothing was recorded.",
                    )
                ],
                what="SyncPoint satisfy",
            )
        if outcome not in OUTCOMES:
            raise RuntimeError(f"satisfy.lua answered an unknown outcome {outcome!r}")
        merged = (
            {pairs[i]: json.loads(pairs[i + 1]) for i in range(0, len(pairs), 2)} if pairs else None
        )
        return SatisfyResult(outcome, completer or None, merged)

    def data(self, traversal: str, node: str) -> dict[str, Any] | None:
        """The merged data of the predecessors so far; None if there is no such point."""
        fields = self._fields(traversal, node)
        if fields is None:
            return None
        return {
            name[len(_DATA) :]: json.loads(value)
            for name, value in fields.items()
            if name.startswith(_DATA)
        }

    def waiting_for(self, traversal: str, node: str) -> frozenset[str] | None:
        """The predecessors that have not satisfied the point yet; None if there is no point."""
        fields = self._fields(traversal, node)
        if fields is None:
            return None
        return frozenset(
            name[len(_EXPECTED) :]
            for name in fields
            if name.startswith(_EXPECTED) and f"{_DATA}{name[len(_EXPECTED) :]}" not in fields
        )

    def drop(self, traversal: str) -> int:
        """Delete every SyncPoint and the heartbeat of a traversal; return how many keys went."""
        problems: list[Problem] = []
        if not check_traversal(traversal, problems):
            raise InvalidInput(problems, what="SyncPoint drop")
        deleted = 0
        batch: list[bytes | str] = []
        pattern = self._keys.points_pattern(traversal)
        for key in self._redis.scan_iter(match=pattern, count=_DROP_BATCH):
            batch.append(key)
            if len(batch) >= _DROP_BATCH:
                deleted += int(self._redis.unlink(*batch))
                batch = []
        batch.append(self._keys.heartbeat(traversal))
        deleted += int(self._redis.unlink(*batch))
        return deleted

    def heartbeat(self, traversal: str) -> None:
        """Note that the traversal is moving, with the Redis server's clock."""
        problems: list[Problem] = []
        if not check_traversal(traversal, problems):
            raise InvalidInput(problems, what="SyncPoint heartbeat")
        self._heartbeat(keys=[self._keys.heartbeat(traversal)], args=[self._ttl_ms])

    def last_heartbeat(self, traversal: str) -> float | None:
        """Epoch seconds of the traversal's last satisfy or heartbeat; None if none is known."""
        raw = self._redis.get(self._keys.heartbeat(traversal))
        return None if raw is None else float(_text(raw))

    def _fields(self, traversal: str, node: str) -> dict[str, str] | None:
        raw = self._redis.hgetall(self._keys.point(traversal, node))
        if not raw:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}


def _validate_waits(traversal: object, waits: object) -> list[tuple[str, list[str]]]:
    """Check a whole create() request; return (node, sorted predecessors) pairs or raise."""
    problems: list[Problem] = []
    check_traversal(traversal, problems)
    if not isinstance(waits, Mapping):
        problems.append(
            Problem("waits", f"must map each node to its predecessors, got {type(waits).__name__}.")
        )
        raise InvalidInput(problems, what="SyncPoints")
    prepared: list[tuple[str, list[str]]] = []
    for node, predecessors in waits.items():
        if not check_name(node, f"waits[{node!r}]", "the node name", problems):
            continue
        path = f"waits.{node}"
        if isinstance(predecessors, str | bytes) or not isinstance(predecessors, Iterable):
            problems.append(
                Problem(path, f"must be a collection of predecessor names, got {predecessors!r}.")
            )
            continue
        names: set[str] = set()
        for predecessor in predecessors:
            if check_name(predecessor, path, "every predecessor name", problems):
                names.add(predecessor)
        if not names and not any(p.path == path for p in problems):
            problems.append(
                Problem(path, f"node {node!r} waits for no predecessor; a SyncPoint needs one.")
            )
        prepared.append((node, sorted(names)))
    if problems:
        raise InvalidInput(problems, what="SyncPoints")
    return prepared


def _encode_data(data: object, problems: list[Problem]) -> str:
    if data is None:
        return "{}"
    if not isinstance(data, Mapping):
        problems.append(Problem("data", f"must be a mapping, got {type(data).__name__}."))
        return ""
    try:
        return json.dumps(dict(data), separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(Problem("data", f"must be JSON-serialisable: {exc}."))
        return ""
