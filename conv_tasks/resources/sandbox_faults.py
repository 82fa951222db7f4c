"""The sandbox cloud on a bad day: it throttles or fails some calls, as a busy cloud does.

OS::Heat::TestResource (and the conformance kit's own test types) act on the sandbox; to
prove that a type and the kit stand a service that answers 429 and 503, the sandbox can be
told to misbehave. CONV_TASKS_SANDBOX_FAULTS (Settings.sandbox_faults_file) names a JSON file
{"throttled": p, "unavailable": q, "retry_after": seconds, "seed": n}; while it exists, each
call of the sandbox first draws from a generator seeded with `seed`: with the probability
`throttled` the call raises Throttled (retry_after), with `unavailable` Transient, and the
sandbox does nothing; the other calls go through. The file is read again when it changes, so
a test turns the faults on and off while workers run; without it the sandbox behaves. Each
process draws its own sequence from the seed, restarted whenever the plan changes.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.provider_errors import Throttled, Transient
from conv_tasks.resources.plugin import Sandbox

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Plan:
    throttled: float
    unavailable: float
    retry_after: float
    seed: int


class FaultySandbox:
    """`inner`, throttled or failing as the plan in the file at `path` says."""

    def __init__(self, inner: Sandbox, path: str) -> None:
        self._inner = inner
        self._path = path
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None  # the file's (mtime, size) last read
        self._plan: _Plan | None = None
        self._random = random.Random(0)

    def create(self, token: str, kind: str, properties: Mapping[str, Any]) -> str:
        self._weather("create")
        return self._inner.create(token, kind, properties)

    def update(self, object_id: str, properties: Mapping[str, Any]) -> None:
        self._weather("update")
        self._inner.update(object_id, properties)

    def delete(self, object_id: str) -> bool:
        self._weather("delete")
        return self._inner.delete(object_id)

    def get(self, object_id: str) -> Mapping[str, Any] | None:
        self._weather("get")
        return self._inner.get(object_id)

    def __getattr__(self, name: str) -> Any:
        # Whatever else the sandbox can do meets the same weather.
        found = getattr(self._inner, name)
        if not callable(found):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            self._weather(name)
            return found(*args, **kwargs)

        return call

    def _weather(self, call: str) -> None:
        """Raise the fault this call draws, if the plan deals it one."""
        with self._lock:
            plan = self._current()
            if plan is None:
                return
            draw = self._random.random()
        if draw < plan.throttled:
            raise Throttled(
                f"the sandbox cloud is busy: {call} throttled (its fault plan)",
                retry_after=plan.retry_after or None,
            )
        if draw < plan.throttled + plan.unavailable:
            raise Transient(f"the sandbox cloud is unavailable: {call} failed (its fault plan)")

    def _current(self) -> _Plan | None:
        """The plan now (None: no file, the sandbox behaves); read again when it changed."""
        try:
            stat = os.stat(self._path)
        except OSError:
            self._seen = self._plan = None
            return None
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._seen:
            self._seen = seen
            self._plan = _read(self._path)
            if self._plan is not None:
                self._random = random.Random(self._plan.seed)
        return self._plan


def _read(path: str) -> _Plan | None:
    """The plan in the file; None (and a warning) when it is not one."""
    try:
        with open(path, encoding="utf-8") as file:
            given = json.load(file)
        if not isinstance(given, dict):
            raise ValueError("it is not a JSON object")
        return _Plan(
            throttled=float(given.get("throttled") or 0.0),
            unavailable=float(given.get("unavailable") or 0.0),
            retry_after=float(given.get("retry_after") or 0.0),
            seed=int(given.get("seed") or 0),
        )
    except (OSError, ValueError, TypeError) as exc:
        log.warning("the sandbox's fault plan %s cannot be read (%s): no faults", path, exc)
        return None


def with_faults(sandbox: Sandbox, path: str) -> Sandbox:
    """`sandbox` as the plan file at `path` makes it (unchanged when `path` is empty)."""
    return FaultySandbox(sandbox, path) if path else sandbox
