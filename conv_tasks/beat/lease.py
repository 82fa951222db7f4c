"""The beats' lease and the workers' gate, in the SyncPoint Redis: the Lua beside this file.

`BeatLease` is a beat's side: take or renew the one lease all beats compete for (hold.lua),
give it up (release.lua). `JobGate` is a worker's side: let a stamped job through only if its
epoch is the lease's and its slot is later than the last that ran (admit.lua). Both are one
script each, so a check and its write never interleave with another beat's or worker's.
Nothing here decides when to call them: conv_tasks.beat.scheduler and conv_tasks.tasks.beat do.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import redis

from conv_tasks.beat.fencing import Stamp, Verdict


def _script(client: redis.Redis, name: str) -> Any:
    # redis-py sends EVALSHA and loads the script again by itself if Redis forgot it.
    return client.register_script((files("conv_tasks.beat") / name).read_text(encoding="utf-8"))


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


@dataclass(frozen=True)
class BeatKeys:
    """`<prefix>:beat:{lease}` the lease, `...:epoch` its fencing epoch, `...:ran:<task>` the
    last slot of a job that ran. One hash tag, so that a Redis Cluster keeps them in one slot
    (admit.lua reads the epoch and writes a job's slot)."""

    prefix: str

    @property
    def lease(self) -> str:
        return f"{self.prefix}:beat:{{lease}}"

    @property
    def epoch(self) -> str:
        return f"{self.prefix}:beat:{{lease}}:epoch"

    def ran(self, task: str) -> str:
        return f"{self.prefix}:beat:{{lease}}:ran:{task}"


class BeatLease:
    """One beat's hold on the lease: `hold()` takes or renews it, `release()` gives it up."""

    def __init__(self, client: redis.Redis, *, prefix: str, holder: str, ttl_ms: int) -> None:
        self._redis = client
        self._keys = BeatKeys(prefix)
        self.holder = holder
        self._ttl_ms = ttl_ms
        self._hold = _script(client, "hold.lua")
        self._release = _script(client, "release.lua")

    def hold(self) -> int | None:
        """The epoch this beat leads under now, or None when another beat holds the lease."""
        epoch = int(
            self._hold(keys=[self._keys.lease, self._keys.epoch], args=[self.holder, self._ttl_ms])
        )
        return epoch or None

    def release(self) -> bool:
        """Give the lease up if it is still this beat's; whether it was."""
        return bool(self._release(keys=[self._keys.lease], args=[self.holder]))

    def holder_now(self) -> str | None:
        """Who holds the lease now (for logs and tests)."""
        value = self._redis.get(self._keys.lease)
        return None if value is None else _text(value)


class JobGate:
    """The check a worker makes before it runs a beat job."""

    def __init__(self, client: redis.Redis, *, prefix: str) -> None:
        self._keys = BeatKeys(prefix)
        self._admit = _script(client, "admit.lua")

    def admit(self, task: str, stamp: Stamp, *, keep_ms: int) -> tuple[Verdict, int]:
        """The verdict on one stamped job, and what it was judged against: the lease's epoch
        (STALE, UNKNOWN) or the last slot that ran (RUN, DONE; -1 for none)."""
        verdict, seen = self._admit(
            keys=[self._keys.epoch, self._keys.ran(task)],
            args=[stamp.epoch, stamp.slot, keep_ms],
        )
        return Verdict(_text(verdict)), int(seen)
