"""The Celery tasks: public stack API, graph nodes and beat jobs.

Tasks are thin: parse the JSON payload, call the engine's face, return JSON. Other packages
take from here the Celery app (`tasks_app`; workers run `celery -A conv_tasks.tasks.app`), the
dispatcher that sends graph nodes through it (CeleryDispatcher), and the JSON Schemas of the
public tasks (contracts). Nothing here speaks SQL or Redis itself.
"""

# Not `app`, the name of the module that makes it (app.py).
from conv_tasks.tasks.app import app as tasks_app
from conv_tasks.tasks.contracts import contracts, public_tasks
from conv_tasks.tasks.runtime import CeleryDispatcher

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.beat",
    "conv_tasks.broker",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.errors",
    "conv_tasks.faults",
    "conv_tasks.input_text",
    "conv_tasks.limits",
    "conv_tasks.redis_client",
    "conv_tasks.requests",
    "conv_tasks.resources",
    "conv_tasks.settings",
    "conv_tasks.syncpoint",
    "conv_tasks.tags",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.api",
    "conv_tasks.cli",
    "conv_tasks.server",
    "conv_tasks.testing",
    "conv_tasks.ui",
    "psycopg",
    "sqlalchemy",
)

__all__ = ["CeleryDispatcher", "contracts", "public_tasks", "tasks_app"]
