"""Celery settings for conv_tasks, read from the environment through conv_tasks.settings.

Each reliability setting says why it is set: conv_tasks must survive killed
workers and redelivered messages without doing anything twice.
"""

from __future__ import annotations

from datetime import timedelta

from conv_tasks.broker import redis_transport
from conv_tasks.broker.options import (
    TASK_QUEUE,
    QueueType,
    connection_conf,
    conv_tasks_routes,
)
from conv_tasks.settings import get_settings

_settings = get_settings()
_connection = connection_conf(_settings)

broker_url = _connection["broker_url"]
# Redis or RabbitMQ, by the URL's scheme (conv_tasks/broker/options.py says what each needs).
# On Redis: our transport, with which a worker survives a broker restart (see
# conv_tasks/broker/redis_transport.py), registered under kombu's own `redis`/`rediss` names
# rather than set as `broker_transport`, so the URL stays redis:// and Flower's Broker page
# knows it; and the visibility timeout after which unacknowledged messages go back to the
# queue. On RabbitMQ: publisher confirms. A sentinel:// list (Redis Sentinel) gets the master's
# name (CONV_TASKS_SENTINEL_MASTER) for the broker and for the results.
redis_transport.register()
broker_transport_options = _connection["broker_transport_options"]
result_backend = _connection["result_backend"]
result_backend_transport_options = _connection["result_backend_transport_options"]

# JSON only: services that do not import conv_tasks call our tasks with send_task, and a
# broker message must never be able to make a worker unpickle (and so run) arbitrary code.
task_serializer = "json"
result_serializer = "json"
accept_content = ["json"]
result_accept_content = ["json"]

# Acknowledge a message only after its task has run: a worker killed mid-task leaves the
# message unacknowledged, and the broker delivers it again. Node tasks are idempotent.
task_acks_late = True
# ...and when the pool child running a task dies (SIGKILL, OOM), requeue the message instead
# of acknowledging it as failed.
task_reject_on_worker_lost = True
# A worker reserves one message at a time, so messages wait in the broker where any free
# worker can take them, not in the memory of a busy (or dying) worker.
worker_prefetch_multiplier = 1
# Task events for Flower: operators watch traversals there (CONV_TASKS_TASK_EVENTS=0 turns them
# off). A worker buffers its task events and publishes them in groups, so they cost the broker
# well under one message per task. A task-sent event costs one more broker message for every
# task published, so it is off unless CONV_TASKS_TASK_SENT_EVENTS=1.
worker_send_task_events = _settings.task_events
task_send_sent_event = _settings.task_sent_events
# Public stack tasks report STARTED; graph nodes store no state or result at all
# (conv_tasks.tasks.node), since nothing reads them.
task_track_started = True

broker_connection_retry_on_startup = True
# On RabbitMQ, how often the worker's consuming connection says it is alive: RabbitMQ requeues
# what a worker held once it has missed about two (a worker cut off by the network holds its
# messages until then). Only the worker's consuming connection sends heartbeats.
# CONV_TASKS_BROKER_HEARTBEAT, 120 s by default (Celery's).
broker_heartbeat = _settings.broker_heartbeat
# Requests on `conv_tasks` (also where a task nobody routed goes), graph nodes and beat jobs on
# `conv_tasks.nodes`: a read never waits behind a traversal. Workers consume both by default.
task_default_queue = TASK_QUEUE
task_routes = conv_tasks_routes()
# Durable queues, and messages RabbitMQ writes to disk: queued work outlives a restart of the
# broker (a Redis broker keeps only what its own persistence keeps). On RabbitMQ they are quorum
# queues, replicated over the cluster, unless CONV_TASKS_RABBITMQ_QUEUE_TYPE=classic.
task_queues = _connection["task_queues"]
task_default_delivery_mode = "persistent"
# With quorum queues, a countdown (a node's poll or retry) waits in RabbitMQ, in Celery's ladder
# of delay queues, not in a worker (conv_tasks.broker.options.conv_tasks_queues); those queues
# are quorum queues too, so a delayed poll outlives the loss of a broker node. Celery declares
# them, and binds the node queue to them, as a worker starts.
broker_native_delayed_delivery_queue_type = QueueType.QUORUM.value
# Quorum queues have no global QoS: the worker sees them and sets its prefetch per consumer
# (Celery's default, said here because conv_tasks depends on it).
worker_detect_quorum_queues = True
result_expires = timedelta(days=1)
worker_hijack_root_logger = False
timezone = "UTC"
enable_utc = True

# Any number of beats may run: they share one lease in the SyncPoint Redis, and only the beat
# holding it sends these jobs, stamped with the lease's fencing epoch and the job's slot; a
# worker runs each slot of each job once (conv_tasks/beat/, docs/operations/deploying.md).
beat_scheduler = "conv_tasks.beat:LeasedScheduler"
beat_schedule = {
    "conv_tasks.beat.watchdog": {
        "task": "conv_tasks.beat.watchdog",
        "schedule": _settings.watchdog_interval,
    },
    "conv_tasks.beat.collect_templates": {
        "task": "conv_tasks.beat.collect_templates",
        "schedule": _settings.gc_interval,
    },
    # Deleted stacks and old events (conv_tasks/engine/retention.py).
    "conv_tasks.beat.purge": {
        "task": "conv_tasks.beat.purge",
        "schedule": _settings.purge_interval,
    },
}
