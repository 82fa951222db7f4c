"""What each broker needs from Celery, decided from the broker URL alone (pure, no I/O).

Redis (redis://, rediss://) emulates acknowledgements: a message a worker took
goes back to the queue when its visibility timeout passes. RabbitMQ (amqp://,
amqps://) acknowledges for real: a message goes back the moment the worker
that held it disconnects, and a durable queue of persistent messages outlives
a broker restart. A sentinel:// list is a Redis broker found through Redis Sentinel. See
docs/operations/configuration.md, "Choosing a broker".
"""

from __future__ import annotations

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


class BrokerKind(StrEnum):
    REDIS = "redis"
    RABBITMQ = "rabbitmq"
    OTHER = "other"


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


def broker_options(
    url: str, *, visibility_timeout: float, sentinel_master: str = "", sentinel_password: str = ""
) -> BrokerOptions:
    """Which broker `url` names, and the transport options it needs (for a sentinel:// list,
    the master's name and how to talk to the sentinels)."""
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
        )
    return BrokerOptions(kind)


def connection_conf(settings: Settings) -> dict[str, Any]:
    """Celery's settings for the broker and the result backend `settings` name: their URLs
    and transport options (on Sentinel, the master's name for both)."""
    broker = broker_options(
        settings.broker_url,
        visibility_timeout=settings.visibility_timeout,
        sentinel_master=settings.sentinel_master,
        sentinel_password=settings.sentinel_password,
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
    }


def conv_tasks_queues() -> list[Queue]:
    """conv_tasks' two queues, requests and graph work: durable, on one durable direct exchange.

    A worker consumes both unless told otherwise (`-Q`); kombu takes its next
    message from each queue in turn, so a request waits for at most one task
    per free pool slot, never for the whole backlog of nodes.

    A classic queue, not a quorum queue: node polls and retries are countdown
    tasks, which on a classic queue wait in the worker (unacknowledged, so
    they come back if it dies) and need nothing more from RabbitMQ; a quorum
    queue would also need Celery's native delayed delivery exchanges, and buys
    replication across a RabbitMQ cluster, which one broker node does not
    have. On Redis the queue is a list and durability means nothing.
    """
    exchange = Exchange(TASK_QUEUE, type="direct", durable=True)
    return [
        Queue(name, exchange, routing_key=name, durable=True) for name in (TASK_QUEUE, NODE_QUEUE)
    ]


def conv_tasks_routes() -> dict[str, dict[str, str]]:
    """Celery's task_routes: graph work on the node queue; everything else is a request."""
    return {
        "conv_tasks.node.*": {"queue": NODE_QUEUE},
        "conv_tasks.beat.*": {"queue": NODE_QUEUE},
    }
