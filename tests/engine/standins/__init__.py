"""One stand-in environment for the engine: its services in memory, on a clock the test
moves, so that stack operations, nodes, completion and the watchdog run without
PostgreSQL, Redis or a broker.

- `StandinDatabase`: what conv_tasks.db.Database offers the engine (transactions of the
  same repositories, node stores with the SQL's lease rules, `answers`), with the schema's
  constraints, plus what a test would read or change with SQL.
- `StandinSyncPoints`: SyncPointStore with finish.lua's semantics.
- `RecordingDispatcher`: what the engine enqueued, and a worker that drains it.
- `StandinSandbox`, `StandinDeployments`, `StandinWaitHandles`: the resource types' stores.
- `standin_env`: an EngineEnv assembled from them as conv_tasks.engine.assembly does.
- `SteppedResource` (Test::Stepped): a TestResource whose actions take polls, not seconds;
  `template`, `resource` and `stepped` write the templates the tests use.

Test code: nothing under conv_tasks imports it, and it changes nothing there.
"""

from .clock import StandinClock
from .database import StandinDatabase, StandinTransaction
from .dispatcher import Delivery, RecordingDispatcher, Sent
from .environment import standin_env
from .nodes import StandinNodeStore
from .services import StandinDeployments, StandinSandbox, StandinWaitHandles
from .stepped import POLL_AFTER, STEPPED, SteppedResource, stepped_registry
from .syncpoints import StandinSyncPoints
from .tables import AbortedTransaction, Violation
from .templates import resource, stepped, template

__all__ = [
    "POLL_AFTER",
    "STEPPED",
    "AbortedTransaction",
    "Delivery",
    "RecordingDispatcher",
    "Sent",
    "StandinClock",
    "StandinDatabase",
    "StandinDeployments",
    "StandinNodeStore",
    "StandinSandbox",
    "StandinSyncPoints",
    "StandinTransaction",
    "StandinWaitHandles",
    "SteppedResource",
    "Violation",
    "resource",
    "standin_env",
    "stepped",
    "stepped_registry",
    "template",
]
