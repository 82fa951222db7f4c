"""Redis SyncPoints: where the predecessors of a graph node meet.

Each node of a traversal has a point that knows which predecessors it waits
for and which successors follow it. A finished node satisfies all its
successors' points in one atomic, idempotent call (finish.lua); the call that
completes a point gets the outputs of all its predecessors and enqueues the
node, and a node with nothing to do is settled inside that same call instead
of costing a task. Redis may lose these keys; the engine then resumes the
traversal from PostgreSQL, so nothing here is ever the only copy of any truth.
"""

from conv_tasks.syncpoint.connection import get_redis
from conv_tasks.syncpoint.result import FinishOutcome, Handoff
from conv_tasks.syncpoint.store import STACK_POINT, PointSpec, SyncPointStore

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors", "conv_tasks.redis_client")
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = ["STACK_POINT", "FinishOutcome", "Handoff", "PointSpec", "SyncPointStore", "get_redis"]
