"""What each broker needs from Celery, decided from the broker URL alone (pure, no I/O).

Redis (redis://, rediss://) emulates acknowledgements: a message a worker took
goes back to the queue when its visibility timeout passes. RabbitMQ (amqp://,
amqps://) acknowledges for real: a message goes back the moment the worker
that held it disconnects, and a durable queue of persistent messages outlives
a broker restart. A sentinel:// list is a Redis broker found through Redis Sentinel. See
docs/operations/configuration.md, "Choosing a broker".

On RabbitMQ conv_tasks' queues are quorum queues (replicated over a cluster)
unless CONV_TASKS_RABBITMQ_QUEUE_TYPE says classic; docs/operations/rabbitmq.md
says what that changes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from kombu import Exchange, Queue

from conv_tasks.sentinel_urls import (
    is_sentinel,
    master_socket_options,
    sentinel_transport_options,
)
from conv_tasks.settings import Settings

# Where public requests wait for a worker: the queue a foreign caller names in send_task.
TASK_QUEUE = "conv_tasks"
# Where graph nodes, their polls and retries, and beat jobs wait: apart from requests, so a read
# never waits behind a large traversal (docs/task-api.md, "Queues and worker pools").
NODE_QUEUE = "conv_tasks.nodes"
# Seconds between two looks of a worker for the messages whose visibility timeout passed.
RESTORE_EVERY = 10
# The setting that chooses the type of both queues on RabbitMQ, named by every error about it.
QUEUE_TYPE_SETTING = "CONV_TASKS_RABBITMQ_QUEUE_TYPE"


class BrokerKind(StrEnum):
    REDIS = "redis"
    RABBITMQ = "rabbitmq"
    OTHER = "other"


class QueueType(StrEnum):
    """RabbitMQ's type of conv_tasks' queues: a classic queue lives on one node, a quorum queue
    is replicated over the cluster (Raft). Other brokers have one kind of queue: CLASSIC."""

    CLASSIC = "classic"
    QUORUM = "quorum"


_KINDS = {
    "redis": BrokerKind.REDIS,
    "rediss": BrokerKind.REDIS,
    "sentinel": BrokerKind.REDIS,
    "amqp": BrokerKind.RABBITMQ,
    "amqps": BrokerKind.RABBITMQ,
    "pyamqp": BrokerKind.RABBITMQ,
}


def broker_kind(url: str) -> BrokerKind:
    """Which broker a URL names; `redis+socket://` and the like by the part before the plus."""
    scheme = urlsplit(url).scheme.lower().split("+", 1)[0]
    return _KINDS.get(scheme, BrokerKind.OTHER)


@dataclass(frozen=True)
class BrokerOptions:
    """The Celery settings that differ between brokers."""

    kind: BrokerKind
    transport_options: dict[str, Any] = field(default_factory=dict)
    # The type of conv_tasks' own queues: QUORUM only on RabbitMQ, and only when asked for.
    queue_type: QueueType = QueueType.CLASSIC


def broker_options(
    url: str,
    *,
    visibility_timeout: float,
    sentinel_master: str = "",
    sentinel_password: str = "",
    queue_type: QueueType = QueueType.CLASSIC,
) -> BrokerOptions:
    """Which broker `url` names, the transport options it needs (for a sentinel:// list, the
    master's name and how to talk to the sentinels), and its queues' type (`queue_type` on
    RabbitMQ, CLASSIC on any other broker)."""
    kind = broker_kind(url)
    if kind is BrokerKind.REDIS:
        return BrokerOptions(
            kind,
            transport_options={
                # A message a worker took and never acknowledged goes back to the queue after
                # this long. Longer than any countdown we use, so a delayed poll is not
                # delivered twice.
                "visibility_timeout": visibility_timeout,
                # Every 10 s each worker looks for such messages (one ZRANGE under a Redis
                # lock). kombu 5.7 looks only every 10th time, so the messages of a worker cut
                # off or killed came back up to 100 s after their timeout (issue 23's
                # partition test found it).
                "unacked_restore_interval": RESTORE_EVERY,
                "unacked_restore_throttle": 1,
                **sentinel_transport_options(
                    url, master=sentinel_master, password=sentinel_password
                ),
                # On Sentinel, a master whose host died is given up on in seconds, not after
                # TCP's retransmissions: the failover is there to be followed.
                **(master_socket_options() if is_sentinel(url) else {}),
            },
        )
    if kind is BrokerKind.RABBITMQ:
        return BrokerOptions(
            kind,
            # Publisher confirms: sending a node returns once RabbitMQ has the message (a
            # persistent one on disk), so a worker never acknowledges the message it ran before
            # the messages it sent on are safe. One round trip per publish.
            transport_options={"confirm_publish": True},
            queue_type=queue_type,
        )
    return BrokerOptions(kind)


def connection_conf(settings: Settings) -> dict[str, Any]:
    """Celery's settings for the broker and the result backend `settings` name: their URLs
    and transport options (on Sentinel, the master's name for both), and conv_tasks' queues
    (of the type CONV_TASKS_RABBITMQ_QUEUE_TYPE chooses, on RabbitMQ)."""
    broker = broker_options(
        settings.broker_url,
        visibility_timeout=settings.visibility_timeout,
        sentinel_master=settings.sentinel_master,
        sentinel_password=settings.sentinel_password,
        queue_type=QueueType(settings.rabbitmq_queue_type),
    )
    return {
        "broker_url": settings.broker_url,
        "broker_transport_options": broker.transport_options,
        "result_backend": settings.result_backend,
        "result_backend_transport_options": sentinel_transport_options(
            settings.result_backend,
            master=settings.sentinel_master,
            password=settings.sentinel_password,
        ),
        "task_queues": conv_tasks_queues(broker.queue_type),
    }


def conv_tasks_queues(queue_type: QueueType = QueueType.CLASSIC) -> list[Queue]:
    """conv_tasks' two queues, requests and graph work, durable, of `queue_type`.

    A worker consumes both unless told otherwise (`-Q`); kombu takes its next
    message from each queue in turn, so a request waits for at most one task
    per free pool slot, never for the whole backlog of nodes.

    Classic queues (and any broker but RabbitMQ) sit on one durable direct
    exchange, `conv_tasks`; a countdown task (a node's poll or retry) waits in
    the worker that took it, unacknowledged, so it comes back if that worker
    dies.

    Quorum queues do not let a worker hold messages that way: their prefetch
    is per consumer and fixed, so a countdown task held in the worker would
    take a pool slot's place until it is due. Celery's native delayed delivery
    keeps the delay in RabbitMQ instead (a ladder of quorum queues whose
    messages expire into the next, `celery_delayed_0..27`), and it needs the
    queue's exchange to be a topic exchange: the node queue, the only one that
    gets countdowns, has its own, `conv_tasks.nodes`. The request queue stays
    on the direct exchange `conv_tasks`, which a foreign caller's Celery
    declares as it sends (docs/task-api.md).
    """
    arguments = {"x-queue-type": "quorum"} if queue_type is QueueType.QUORUM else None
    requests = Exchange(TASK_QUEUE, type="direct", durable=True)
    nodes = (
        Exchange(NODE_QUEUE, type="topic", durable=True)
        if queue_type is QueueType.QUORUM
        else requests
    )
    return [
        Queue(name, exchange, routing_key=name, durable=True, queue_arguments=arguments)
        for name, exchange in ((TASK_QUEUE, requests), (NODE_QUEUE, nodes))
    ]


def delayed_by_broker(queues: Iterable[Queue]) -> bool:
    """Whether countdowns to these queues wait in RabbitMQ (native delayed delivery, which
    Celery uses as soon as one of an app's queues is a quorum queue) rather than in a worker."""
    # kombu sets queue_arguments from its attribute table: typing does not know it.
    return any(
        (getattr(queue, "queue_arguments", None) or {}).get("x-queue-type") == QueueType.QUORUM
        for queue in queues
    )


def broker_countdown(countdown: float) -> int:
    """A countdown as RabbitMQ's delay queues can wait it: whole seconds, rounded up.

    Celery truncates a countdown to whole seconds to pick the delay queues,
    and refuses one under a second outright ("countdown must be a positive
    number"); rounded up, the message arrives when its ETA has passed, so no
    worker holds it waiting.
    """
    return max(1, math.ceil(countdown))


def conv_tasks_routes() -> dict[str, dict[str, str]]:
    """Celery's task_routes: graph work on the node queue; everything else is a request."""
    return {
        "conv_tasks.node.*": {"queue": NODE_QUEUE},
        "conv_tasks.beat.*": {"queue": NODE_QUEUE},
    }
