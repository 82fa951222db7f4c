"""A least-recently-used cache bounded by an estimate of the bytes its entries hold.

A worker process keeps what never changes (a stored template's definition)
so that most nodes read nothing but their own resource. Counting entries is
no bound on memory when one template has ten resources and another ten
thousand, so every entry carries a weight in bytes and the cache keeps the
sum under its budget. An entry heavier than the whole budget is not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ByteBoundedCache(Generic[K, V]):
    def __init__(self, budget: int) -> None:
        if budget < 0:
            raise ValueError(f"a cache budget must be zero or more bytes, got {budget}")
        self.budget = budget
        self.used = 0
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self._entries.get(key)
        if found is None:
            return None
        self._entries.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V, weight: int) -> None:
        """Keep `value`, evicting the least recently used entries to stay within budget."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.used -= old[1]
        if weight > self.budget:
            return
        while self._entries and self.used + weight > self.budget:
            _, (_, evicted) = self._entries.popitem(last=False)
            self.used -= evicted
        self._entries[key] = (value, weight)
        self.used += weight

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
