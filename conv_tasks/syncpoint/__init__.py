"""Redis SyncPoints: where the predecessors of a graph node meet.

A node's SyncPoint knows which predecessors it waits for. Each finished
predecessor satisfies it (one Lua script: atomic and idempotent); the single
call that completes it gets the merged data of all predecessors and enqueues
the node. Redis may lose these keys; the engine then resumes the traversal
from PostgreSQL, so nothing here is ever the only copy of any truth.
"""

from conv_tasks.syncpoint.result import SatisfyResult
from conv_tasks.syncpoint.store import SyncPointStore

__all__ = ["SatisfyResult", "SyncPointStore"]
