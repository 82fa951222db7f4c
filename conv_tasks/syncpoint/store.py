"""SyncPointStore: create, finish, inspect and drop the SyncPoints of a traversal in Redis.

The one place that writes SyncPoint keys. Finishing a node is one Lua script
(finish.lua), so counting a predecessor, detecting its duplicates, settling
nodes that have nothing to do and handing out the merged outputs happen in a
single atomic step, one round trip whatever the node's out-degree. Input is
validated before Redis is touched, and bad input writes nothing. This module
must never decide what a node does with its trigger: it only says who must
be triggered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import redis

from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.syncpoint.keys import KeyLayout, check_name, check_traversal
from conv_tasks.syncpoint.result import FinishOutcome, Handoff

# The point every leaf of a traversal satisfies: when it completes, the traversal is over.
STACK_POINT = "stack"
# Points per pipelined round trip in create(): big enough to be fast, small enough that one
# request does not hold a whole large graph in memory.
_CREATE_BATCH = 1000
# Keys per SCAN step and per UNLINK in drop().
_DROP_BATCH = 1000
_EXPECTED = "p:"
_DATA = "d:"


@dataclass(frozen=True)
class PointSpec:
    """One node's point: the predecessors it waits for and the successors that follow it."""

    waits_for: tuple[str, ...] = ()
    then: tuple[str, ...] = ()


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
        self._finish = _load_script(client, "finish.lua")
        self._heartbeat = _load_script(client, "heartbeat.lua")

    @property
    def prefix(self) -> str:
        return self._keys.prefix

    def create(self, traversal: str, points: Mapping[str, PointSpec]) -> None:
        """Create one SyncPoint per node: whom it waits for, whom it is followed by.

        Everything is validated before anything is written. A point is
        (re)defined from scratch, so call this only for a traversal nobody
        finishes nodes of yet: a fresh traversal ID.
        """
        prepared = validate_points(traversal, points)
        for start in range(0, len(prepared), _CREATE_BATCH):
            # Each batch is one MULTI/EXEC: no reader sees a half-built point.
            pipe = self._redis.pipeline(transaction=True)
            for node, spec in prepared[start : start + _CREATE_BATCH]:
                key = self._keys.point(traversal, node)
                fields: dict[str, str | int] = {f"{_EXPECTED}{p}": 1 for p in spec.waits_for}
                fields["remaining"] = len(spec.waits_for)
                fields["next"] = json.dumps(list(spec.then), separators=(",", ":"))
                pipe.delete(key)
                pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
                pipe.pexpire(key, self._ttl_ms)
            pipe.execute()

    def finish(
        self,
        traversal: str,
        node: str,
        output: Mapping[str, Any] | None = None,
        *,
        settled: Iterable[str] = (),
    ) -> Handoff:
        """Record that `node` finished with `output`: satisfy every successor's point at once.

        `settled` names successors with nothing to do: when their point
        completes they hand their predecessors' failures on inside this same
        call, and are never enqueued. Atomic and idempotent; refreshes the
        touched points' TTL and the traversal's heartbeat.
        """
        problems: list[Problem] = []
        check_traversal(traversal, problems)
        check_name(node, "node", "the node name", problems)
        encoded = encode_data(output, problems)
        settled = list(settled)
        for name in settled:
            check_name(name, "settled", "every settled node name", problems)
        if problems:
            raise InvalidInput(problems, what="SyncPoint finish")
        reply = self._finish(
            keys=[self._keys.point(traversal, node), self._keys.heartbeat(traversal)],
            args=[
                self._keys.points_prefix(traversal),
                node,
                encoded,
                self._ttl_ms,
                STACK_POINT,
                *settled,
            ],
        )
        outcome = FinishOutcome(_text(reply[0]))
        stack_input = None if reply[1] is None else json.loads(_text(reply[1]))
        missing = tuple(json.loads(_text(reply[2])))
        parts = [_text(part) for part in reply[3:]]
        triggered = tuple((parts[i], json.loads(parts[i + 1])) for i in range(0, len(parts), 2))
        return Handoff(outcome, triggered, stack_input, missing)

    def data(self, traversal: str, node: str) -> dict[str, Any] | None:
        """The outputs the point's predecessors gave so far; None if there is no such point."""
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

    def heartbeat(self, traversal: str, node: str | None = None) -> None:
        """Note that the traversal is moving, with the Redis server's clock. With `node`, note
        also that the node's action is under way: a repeat of the node that triggered it no
        longer triggers it again (finish)."""
        problems: list[Problem] = []
        check_traversal(traversal, problems)
        if node is not None:
            check_name(node, "node", "the node name", problems)
        if problems:
            raise InvalidInput(problems, what="SyncPoint heartbeat")
        keys = [self._keys.heartbeat(traversal)]
        if node is not None:
            keys.append(self._keys.point(traversal, node))
        self._heartbeat(keys=keys, args=[self._ttl_ms])

    def ping(self) -> bool:
        """Whether Redis answers (the health check)."""
        return bool(self._redis.ping())

    def last_heartbeat(self, traversal: str) -> float | None:
        """Epoch seconds of the traversal's last finish or heartbeat; None if none is known."""
        raw = self._redis.get(self._keys.heartbeat(traversal))
        return None if raw is None else float(_text(raw))

    def _fields(self, traversal: str, node: str) -> dict[str, str] | None:
        raw = self._redis.hgetall(self._keys.point(traversal, node))
        if not raw:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}


def _names(value: object, path: str, what: str, problems: list[Problem]) -> tuple[str, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        problems.append(Problem(path, f"must be a collection of {what}s, got {value!r}."))
        return ()
    names = [name for name in value if check_name(name, path, f"every {what}", problems)]
    return tuple(sorted(set(names)))


def validate_points(traversal: object, points: object) -> list[tuple[str, PointSpec]]:
    """Check a whole create() request; return (node, normalised spec) pairs or raise."""
    problems: list[Problem] = []
    check_traversal(traversal, problems)
    if not isinstance(points, Mapping):
        problems.append(
            Problem("points", f"must map each node to its PointSpec, got {type(points).__name__}.")
        )
        raise InvalidInput(problems, what="SyncPoints")
    prepared: list[tuple[str, PointSpec]] = []
    for node, spec in points.items():
        if not check_name(node, f"points[{node!r}]", "the node name", problems):
            continue
        path = f"points.{node}"
        if not isinstance(spec, PointSpec):
            problems.append(Problem(path, f"must be a PointSpec, got {type(spec).__name__}."))
            continue
        waits = _names(spec.waits_for, f"{path}.waits_for", "predecessor name", problems)
        then = _names(spec.then, f"{path}.then", "successor name", problems)
        unknown = [name for name in then if name not in points]
        if unknown:
            problems.append(
                Problem(f"{path}.then", f"names {unknown}, which have no point of their own.")
            )
        prepared.append((node, PointSpec(waits, then)))
    if problems:
        raise InvalidInput(problems, what="SyncPoints")
    return prepared


def encode_data(data: object, problems: list[Problem]) -> str:
    """A node's output as the JSON a point stores, or "" with the problem noted."""
    if data is None:
        return "{}"
    if not isinstance(data, Mapping):
        problems.append(Problem("output", f"must be a mapping, got {type(data).__name__}."))
        return ""
    try:
        return json.dumps(dict(data), separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(Problem("output", f"must be JSON-serialisable: {exc}."))
        return ""
