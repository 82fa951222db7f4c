"""Building an engine environment for a process: the one place that puts the parts together.

It wires the real services (PostgreSQL through conv_tasks.db, Redis SyncPoints, the
resource types' stores) and the two callbacks the node path needs (the end of a
traversal, the nested-stack service). Tests assemble their own environments instead,
with stand-ins where they need them.
"""

from __future__ import annotations

from conv_tasks.connections import (
    Connections,
    RateLimiter,
    load_connections,
    own_connections,
)
from conv_tasks.constraints import installed_checkers
from conv_tasks.db import Database, PostgresDeployments, PostgresSandbox, PostgresWaitHandles
from conv_tasks.engine.definition import Definitions
from conv_tasks.engine.dispatch import Dispatcher
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.features import EngineChildStacks
from conv_tasks.engine.stack import end_traversal, resume_traversal
from conv_tasks.resources import Registry, default_registry, sandbox_with_faults
from conv_tasks.secrets_at_rest import Sealer
from conv_tasks.settings import Settings, get_settings
from conv_tasks.syncpoint import SyncPointStore
from conv_tasks.syncpoint.connection import get_redis


def build_env(
    settings: Settings, dispatcher: Dispatcher, *, registry: Registry | None = None
) -> EngineEnv:
    """An environment on the services `settings` name, enqueueing nodes with `dispatcher`."""
    url = settings.database_url
    sealer = Sealer(settings.encryption_keys)
    redis = get_redis(settings.redis_url, settings=settings)
    syncpoints = SyncPointStore(redis, prefix=settings.redis_prefix, ttl=settings.syncpoint_ttl)
    registry = registry or default_registry()
    connections = Connections(
        load_connections(settings.connections_file),
        environ=settings.environ,
        # A slot in flight outlives a missed poll or two, and no dead worker for long.
        limiter=RateLimiter(redis, prefix=settings.redis_prefix, lease=2 * settings.lock_ttl),
        own=own_connections(
            settings.broker_url,
            settings.result_backend,
            sentinel_master=settings.sentinel_master,
            sentinel_password=settings.sentinel_password,
        ),
    )
    env = EngineEnv(
        settings=settings,
        db=Database(url, sealer=sealer),
        syncpoints=syncpoints,
        dispatcher=dispatcher,
        registry=registry,
        definitions=Definitions(settings.cache_bytes, registry),
        sandbox=sandbox_with_faults(PostgresSandbox(url), settings.sandbox_faults_file),
        deployments=PostgresDeployments(url, sealer=sealer),
        wait_handles=PostgresWaitHandles(url),
        end_traversal=end_traversal,
        resume_traversal=resume_traversal,
        connections=connections,
        constraints=installed_checkers().strictly(settings.strict_constraints),
    )
    env.children = EngineChildStacks(env)
    return env


def default_env(dispatcher: Dispatcher) -> EngineEnv:
    """An environment on the configured services (CONV_TASKS_* settings)."""
    return build_env(get_settings(), dispatcher)
