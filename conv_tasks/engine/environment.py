"""Everything a piece of the engine needs from the outside world, in one plain object."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conv_tasks.db.deployments import PostgresDeployments
from conv_tasks.db.nodes import NodeStore
from conv_tasks.db.sandbox import PostgresSandbox
from conv_tasks.db.session import node_connection
from conv_tasks.db.wait_handles import PostgresWaitHandles
from conv_tasks.deployments.store import DeploymentStore
from conv_tasks.engine.definition.model import Definitions, default_definitions
from conv_tasks.resources import Registry, Sandbox, default_registry
from conv_tasks.settings import Settings, get_settings
from conv_tasks.syncpoint import SyncPointStore
from conv_tasks.syncpoint.connection import get_redis
from conv_tasks.waitconditions.store import WaitHandleStore

if TYPE_CHECKING:
    from conv_tasks.engine.dispatch import Dispatcher


@dataclass
class EngineEnv:
    settings: Settings
    syncpoints: SyncPointStore
    dispatcher: Dispatcher
    registry: Registry = field(default_factory=default_registry)
    sandbox: Sandbox = field(default_factory=PostgresSandbox)
    deployments: DeploymentStore = field(default_factory=PostgresDeployments)
    wait_handles: WaitHandleStore = field(default_factory=PostgresWaitHandles)
    definitions: Definitions = field(default_factory=default_definitions)

    @classmethod
    def default(cls, dispatcher: Dispatcher) -> EngineEnv:
        settings = get_settings()
        store = SyncPointStore(
            get_redis(settings.redis_url), prefix=settings.redis_prefix, ttl=settings.syncpoint_ttl
        )
        return cls(settings=settings, syncpoints=store, dispatcher=dispatcher)

    @contextmanager
    def node_store(
        self, *, stack_id: str, traversal: str, template_id: int, nonce: str
    ) -> Iterator[NodeStore]:
        """The repository of one node delivery, on one database connection."""
        with node_connection(self.settings.database_url) as conn:
            yield NodeStore(
                conn, stack_id=stack_id, traversal=traversal, template_id=template_id, nonce=nonce
            )
