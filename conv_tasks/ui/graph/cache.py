"""Drawn graphs kept in-process, least recently used first out.

A key is (traversal, the fingerprint of every status, reason and nesting the drawing was made
from, the options): a graph is laid out again only when something on it changed. The edge
serves pages from a thread pool, so the cache takes a lock; dot runs outside it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

# How many drawings one process keeps: a focused drawing is some hundreds of kilobytes.
CACHE_ENTRIES = 32

V = TypeVar("V")


class DrawingCache(Generic[V]):
    """A bounded LRU map, safe to share between threads."""

    def __init__(self, size: int = CACHE_ENTRIES) -> None:
        if size < 1:
            raise ValueError("a DrawingCache holds at least one entry")
        self._size = size
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
