"""The Celery application.

Workers: `celery -A conv_tasks.tasks.app worker`, or `conv-tasks worker`.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import worker_process_init

TASK_MODULES = [
    "conv_tasks.tasks.health",
    "conv_tasks.tasks.stack",
    "conv_tasks.tasks.deployment",
    "conv_tasks.tasks.node",
    "conv_tasks.tasks.beat",
]

app = Celery("conv_tasks", include=TASK_MODULES)
app.config_from_object("celeryconfig")


@worker_process_init.connect
def _after_fork(**_kwargs: Any) -> None:
    # A pool child must not share the parent's database connections.
    from conv_tasks.db.session import reset_after_fork

    reset_after_fork()
