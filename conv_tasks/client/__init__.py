"""conv_tasks.client: drive conv_tasks from Python over the broker (`Client`).

Every call is a public task sent with `send_task`, exactly as a service that does not
import conv_tasks would send it. A refused request raises the matching ConvTasksError; a
broker, result store, PostgreSQL or SyncPoint Redis that cannot be reached raises
errors.Unavailable, naming it.

sending.py sends one task and reads its answer (sender_app, the app it sends with);
operations.py holds the stack operations, the requests among them made from their
declarations in conv_tasks.requests; reads.py the reads and `wait`; agents.py what hosts
and agents send; tenant.py puts them together as Client.

A client only sends: this folder must never import conv_tasks.engine, db or tasks, nor
decide what the engine decides. The CLI and the HTTP edge reach the engine through it.
"""

from conv_tasks.client.sending import sender_app
from conv_tasks.client.tenant import Client

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors", "conv_tasks.masked_url", "conv_tasks.requests")
MUST_NOT_IMPORT = (
    "click",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = ["Client", "sender_app"]
