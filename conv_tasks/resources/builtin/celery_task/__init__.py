"""ConvTasks::Celery::Task: a resource that is work done by another service's Celery tasks.

call.py says what one task call is and checks it (pure); remote.py sends calls, reads
their state and revokes them through a Celery app (the only I/O); resource.py is the
resource type. Nothing here ever waits for a task: a step reads its state once and asks to
be polled again (never `AsyncResult.get()`), and a task is sent with the action's token as
its idempotency key and as the source of its task id, so that sending again makes nothing
twice.
"""

from conv_tasks.resources.builtin.celery_task.resource import CeleryTaskResource

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.sdk",)
MUST_NOT_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = ["CeleryTaskResource"]
