"""The stand-in for conv_tasks.syncpoint.SyncPointStore: SyncPoints and heartbeats in dicts.

`finish` is finish.lua step by step: a point's fields are the Redis hash's (p:<pred>,
d:<pred> as JSON text, remaining, completer, next, settled, done, started); a predecessor
counts once, a repeat hands on again only what it completed and that has neither finished
nor started (or is settled), settled successors pass their predecessors' failures on
within the call, and the stack point's completion comes back as `stack_input`.
Heartbeats are dated by the test's clock (the Redis server's TIME). Input is checked as
the real store checks it, before anything is written. Keys never expire here: a test that
wants SyncPoints lost drops them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.syncpoint import STACK_POINT, FinishOutcome, Handoff, PointSpec
from conv_tasks.syncpoint.keys import check_name, check_traversal
from conv_tasks.syncpoint.store import encode_data, validate_points

from .clock import StandinClock

Point = dict[str, str]


def _inputs(point: Point) -> dict[str, Any]:
    """Every predecessor's output the point holds (finish.lua's inputs)."""
    return {name[2:]: json.loads(value) for name, value in point.items() if name.startswith("d:")}


def _failures(point: Point) -> str:
    """What a settled node hands on: its predecessors' failures, or nothing (as JSON)."""
    found: dict[str, None] = {}
    for value in _inputs(point).values():
        failed = value.get("failed") if isinstance(value, dict) else None
        for failure in failed if isinstance(failed, list) else ():
            if isinstance(failure, str):
                found.setdefault(failure)
    return json.dumps({"failed": list(found)}) if found else "{}"


class StandinSyncPoints:
    def __init__(self, clock: StandinClock, *, prefix: str = "standin") -> None:
        self._clock = clock
        self.prefix = prefix
        self._points: dict[str, dict[str, Point]] = {}
        self._heartbeats: dict[str, float] = {}

    def create(self, traversal: str, points: Mapping[str, PointSpec]) -> None:
        prepared = validate_points(traversal, points)
        held = self._points.setdefault(traversal, {})
        for node, spec in prepared:
            point: Point = {f"p:{pred}": "1" for pred in spec.waits_for}
            point["remaining"] = str(len(spec.waits_for))
            point["next"] = json.dumps(list(spec.then))
            held[node] = point

    def finish(
        self,
        traversal: str,
        node: str,
        output: Mapping[str, Any] | None = None,
        *,
        settled: Iterable[str] = (),
    ) -> Handoff:
        problems: list[Problem] = []
        check_traversal(traversal, problems)
        check_name(node, "node", "the node name", problems)
        encoded = encode_data(output, problems)
        settled = list(settled)
        for name in settled:
            check_name(name, "settled", "every settled node name", problems)
        if problems:
            raise InvalidInput(problems, what="SyncPoint finish")
        points = self._points.get(traversal, {})
        own = points.get(node)
        if own is None:
            return Handoff(FinishOutcome.MISSING)
        outcome = FinishOutcome.REPEAT if "done" in own else FinishOutcome.OK
        own["done"] = "1"
        for name in settled:
            if name in points:
                points[name]["settled"] = "1"
        stack_input: dict[str, Any] | None = None
        triggered: list[tuple[str, dict[str, Any]]] = []
        missing: list[str] = []
        work = [(node, encoded)]
        while work:
            finished, out = work.pop()
            listed = points[finished].get("next") if finished in points else None
            for succ in json.loads(listed) if listed else []:
                point = points.get(succ)
                if point is None:
                    missing.append(succ)
                    continue
                ready = False
                if f"d:{finished}" not in point:
                    point[f"d:{finished}"] = out
                    point["remaining"] = str(int(point["remaining"]) - 1)
                    ready = point["remaining"] == "0"
                    if ready:
                        point["completer"] = finished
                elif point.get("completer") == finished:
                    # Satisfied before by this very node: hand it on again only if it may
                    # have been lost (a settled one is walked again, costing no task).
                    ready = ("done" not in point and "started" not in point) or "settled" in point
                if not ready:
                    continue
                if succ == STACK_POINT:
                    stack_input = _inputs(point)
                elif "settled" in point:
                    point["done"] = "1"
                    work.append((succ, _failures(point)))
                else:
                    triggered.append((succ, _inputs(point)))
        self._heartbeats[traversal] = self._clock.time()
        return Handoff(outcome, tuple(triggered), stack_input, tuple(missing))

    def data(self, traversal: str, node: str) -> dict[str, Any] | None:
        point = self._points.get(traversal, {}).get(node)
        return None if point is None else _inputs(point)

    def waiting_for(self, traversal: str, node: str) -> frozenset[str] | None:
        point = self._points.get(traversal, {}).get(node)
        if point is None:
            return None
        return frozenset(
            name[2:] for name in point if name.startswith("p:") and f"d:{name[2:]}" not in point
        )

    def drop(self, traversal: str) -> int:
        problems: list[Problem] = []
        if not check_traversal(traversal, problems):
            raise InvalidInput(problems, what="SyncPoint drop")
        points = self._points.pop(traversal, {})
        beat = self._heartbeats.pop(traversal, None)
        return len(points) + (beat is not None)

    def heartbeat(self, traversal: str, node: str | None = None) -> None:
        problems: list[Problem] = []
        check_traversal(traversal, problems)
        if node is not None:
            check_name(node, "node", "the node name", problems)
        if problems:
            raise InvalidInput(problems, what="SyncPoint heartbeat")
        self._heartbeats[traversal] = self._clock.time()
        point = self._points.get(traversal, {}).get(node or "")
        if point is not None:
            point["started"] = "1"

    def ping(self) -> bool:
        return True

    def last_heartbeat(self, traversal: str) -> float | None:
        return self._heartbeats.get(traversal)

    # ------------------------------------------------------------ for tests

    def date_back(self, traversal: str, seconds: float) -> None:
        """Date the traversal's last heartbeat back by `seconds` (the watchdog compares it
        with the wall clock)."""
        self._heartbeats[traversal] -= seconds

    def traversals(self) -> set[str]:
        """The traversals that have SyncPoints."""
        return {traversal for traversal, points in self._points.items() if points}
