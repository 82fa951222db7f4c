"""The Celery application.

Workers: `celery -A conv_tasks.tasks.app worker`, or `conv-tasks worker`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from celery import Celery
from celery.signals import beat_init, worker_init, worker_process_init

from conv_tasks.tasks.startup_checks import quiet_request_exchange_notice

if TYPE_CHECKING:
    from conv_tasks.settings import Settings

TASK_MODULES = [
    "conv_tasks.tasks.health",
    "conv_tasks.tasks.stack",
    "conv_tasks.tasks.template",
    "conv_tasks.tasks.preview",
    "conv_tasks.tasks.graph",
    "conv_tasks.tasks.overview",
    "conv_tasks.tasks.deployment",
    "conv_tasks.tasks.wait_condition",
    "conv_tasks.tasks.node",
    "conv_tasks.tasks.beat",
]

# Every task's request shows the worker's own summary of its arguments, never their values,
# whatever the sender put in its kwargsrepr (conv_tasks.tasks.request).
app = Celery("conv_tasks", include=TASK_MODULES, task_cls="conv_tasks.tasks.request:Task")
app.config_from_object("celeryconfig")
# The worker checks every message, and decodes it with limits, before Celery's consumer
# handles it: no message, whatever its content, stops a worker (conv_tasks.tasks.consumer).
app.conf.worker_consumer = "conv_tasks.tasks.consumer:Consumer"
# The request queue's exchange is direct on purpose: kombu's warning about it is not ours.
quiet_request_exchange_notice()


@worker_process_init.connect
def _after_fork(**_kwargs: Any) -> None:
    # A pool child must not share the parent's database connections.
    from conv_tasks.db import reset_after_fork

    reset_after_fork()


def _check_timings(process: str, settings: Settings) -> None:
    """Stop on timing settings that cannot work together; warn of those that risk it."""
    from conv_tasks.broker import BrokerKind, broker_kind
    from conv_tasks.engine import BACKOFF_LAST
    from conv_tasks.resources import default_registry
    from conv_tasks.tasks.node import LONGEST_DELAY
    from conv_tasks.tasks.timing_checks import Timings, check_timings

    types = default_registry().list(include_hidden=True)
    slowest = max(types, key=lambda cls: cls.step_budget)
    timings = Timings(max(BACKOFF_LAST, LONGEST_DELAY), slowest.step_budget, slowest.type_name)
    redis = broker_kind(settings.broker_url) is BrokerKind.REDIS
    check_timings(process, settings, timings, redis_broker=redis)


@worker_init.connect
def _worker_started(**_kwargs: Any) -> None:
    from conv_tasks.settings import get_settings
    from conv_tasks.tasks.startup_warnings import (
        refuse_misconfigured_sentinels,
        warn_if_unsealed,
    )

    settings = get_settings()
    refuse_misconfigured_sentinels("worker", settings)
    warn_if_unsealed("worker", settings)
    _check_timings("worker", settings)


@beat_init.connect
def _beat_started(**_kwargs: Any) -> None:
    from conv_tasks.settings import get_settings
    from conv_tasks.tasks.startup_checks import stop_unless_queues_match
    from conv_tasks.tasks.startup_warnings import (
        refuse_misconfigured_sentinels,
        warn_if_unsealed,
    )

    settings = get_settings()
    refuse_misconfigured_sentinels("beat", settings)
    warn_if_unsealed("beat", settings)
    _check_timings("beat", settings)
    stop_unless_queues_match(app, settings, "beat")
