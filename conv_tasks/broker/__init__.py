"""The Celery broker: which one a URL names, its settings, and our fix to kombu's Redis transport.

Redis and RabbitMQ both carry conv_tasks' task messages; `options` decides,
from the broker URL alone, what each needs. Nothing here connects to a broker
but `queue_check`, which declares conv_tasks' queues as a process starts and
turns RabbitMQ's refusal of their type into one line naming the setting.
"""

from conv_tasks.broker.options import (
    NODE_QUEUE,
    QUEUE_TYPE_SETTING,
    TASK_QUEUE,
    BrokerKind,
    QueueType,
    broker_countdown,
    broker_kind,
    broker_options,
    connection_conf,
    delayed_by_broker,
)
from conv_tasks.broker.queue_check import check_queues, refusal

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors", "conv_tasks.sentinel_urls", "conv_tasks.settings")
MUST_NOT_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.syncpoint",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = [
    "NODE_QUEUE",
    "QUEUE_TYPE_SETTING",
    "TASK_QUEUE",
    "BrokerKind",
    "QueueType",
    "broker_countdown",
    "broker_kind",
    "broker_options",
    "check_queues",
    "connection_conf",
    "delayed_by_broker",
    "refusal",
]
