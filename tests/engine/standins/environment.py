"""An engine environment on the stand-ins: no PostgreSQL, Redis or broker.

It is assembled as conv_tasks.engine.assembly assembles a process's: the real registry
(or the one given), a real Definitions cache, the engine's own `end_traversal` and
`resume_traversal`, and the nested-stack service on the environment itself; only the
services are stand-ins, all on one clock the test moves.
"""

from __future__ import annotations

from conv_tasks.engine import EngineEnv
from conv_tasks.engine.definition import Definitions
from conv_tasks.engine.features import EngineChildStacks
from conv_tasks.engine.stack import end_traversal, resume_traversal
from conv_tasks.resources import Registry, default_registry
from conv_tasks.settings import Settings

from .clock import StandinClock
from .database import StandinDatabase
from .dispatcher import RecordingDispatcher
from .services import StandinDeployments, StandinSandbox, StandinWaitHandles
from .syncpoints import StandinSyncPoints


def standin_env(
    *,
    settings: Settings | None = None,
    registry: Registry | None = None,
    clock: StandinClock | None = None,
) -> EngineEnv:
    clock = clock or StandinClock()
    settings = settings or Settings()
    db = StandinDatabase(clock)
    registry = registry or default_registry()
    env = EngineEnv(
        settings=settings,
        db=db,
        syncpoints=StandinSyncPoints(clock),
        dispatcher=RecordingDispatcher(clock),
        registry=registry,
        definitions=Definitions(settings.cache_bytes, registry),
        sandbox=StandinSandbox(db.work),
        deployments=StandinDeployments(db.work),
        wait_handles=StandinWaitHandles(db.work),
        end_traversal=end_traversal,
        resume_traversal=resume_traversal,
    )
    env.children = EngineChildStacks(env)
    return env
