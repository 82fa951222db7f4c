"""Everything a piece of the engine needs from the outside world, in one plain object."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conv_tasks.db.sandbox import PostgresSandbox
from conv_tasks.redis_client import get_redis
from conv_tasks.resources import Registry, Sandbox, default_registry
from conv_tasks.settings import Settings, get_settings
from conv_tasks.syncpoint import SyncPointStore

if TYPE_CHECKING:
    from conv_tasks.engine.dispatch import Dispatcher


@dataclass
class EngineEnv:
    settings: Settings
    syncpoints: SyncPointStore
    dispatcher: Dispatcher
    registry: Registry = field(default_factory=default_registry)
    sandbox: Sandbox = field(default_factory=PostgresSandbox)

    @classmethod
    def default(cls, dispatcher: Dispatcher) -> EngineEnv:
        settings = get_settings()
        store = SyncPointStore(
            get_redis(settings.redis_url), prefix=settings.redis_prefix, ttl=settings.syncpoint_ttl
        )
        return cls(settings=settings, syncpoints=store, dispatcher=dispatcher)

    def waiter_key(self, resource_id: int) -> str:
        """Redis key where a node blocked by another traversal's lock leaves its payload."""
        return f"{self.settings.redis_prefix}:wait:{resource_id}"
