"""Which broker a URL names, and what Celery is told for each (no broker needed)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import redis
from kombu import Connection

from conv_tasks.broker.options import (
    NODE_QUEUE,
    REDIS_TRANSPORT,
    TASK_QUEUE,
    BrokerKind,
    broker_kind,
    broker_options,
    conv_tasks_queues,
    conv_tasks_routes,
)
from conv_tasks.broker.redis_transport import Channel, Transport


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("redis://127.0.0.1:6379/0", BrokerKind.REDIS),
        ("rediss://:secret@cache.example:6380/2", BrokerKind.REDIS),
        ("redis+socket:///run/redis.sock", BrokerKind.REDIS),
        ("sentinel://10.0.0.1:26379", BrokerKind.REDIS),
        ("amqp://guest:guest@127.0.0.1:5672/conv", BrokerKind.RABBITMQ),
        ("AMQPS://user@mq.example/", BrokerKind.RABBITMQ),
        ("pyamqp://127.0.0.1//", BrokerKind.RABBITMQ),
        ("memory://", BrokerKind.OTHER),
    ],
)
def test_broker_kind_by_scheme(url: str, kind: BrokerKind) -> None:
    assert broker_kind(url) is kind


def test_redis_gets_our_transport_and_the_visibility_timeout() -> None:
    options = broker_options("redis://127.0.0.1:6379/0", visibility_timeout=42.0)
    assert options.transport == REDIS_TRANSPORT
    assert options.transport_options == {"visibility_timeout": 42.0}
    # Sentinel and unix sockets keep kombu's own transport, and the timeout.
    for url in ("sentinel://10.0.0.1:26379", "redis+socket:///run/redis.sock"):
        other = broker_options(url, visibility_timeout=42.0)
        assert other.transport is None
        assert other.transport_options == {"visibility_timeout": 42.0}


def test_rabbitmq_gets_publisher_confirms_and_no_redis_options() -> None:
    options = broker_options("amqp://guest:guest@127.0.0.1:5672/conv", visibility_timeout=42.0)
    assert options.kind is BrokerKind.RABBITMQ
    assert options.transport is None  # kombu's py-amqp transport, by the scheme
    assert options.transport_options == {"confirm_publish": True}


def test_both_queues_are_durable() -> None:
    requests, nodes = conv_tasks_queues()
    assert requests.name == TASK_QUEUE and requests.routing_key == TASK_QUEUE
    assert nodes.name == NODE_QUEUE and nodes.routing_key == NODE_QUEUE
    for queue in (requests, nodes):
        assert queue.durable and not queue.auto_delete
        assert queue.exchange.name == TASK_QUEUE and queue.exchange.durable
        assert queue.exchange.type == "direct"
        assert not queue.queue_arguments  # a classic queue, not a quorum queue


def test_graph_work_is_routed_apart_from_requests() -> None:
    from celery import Celery

    app = Celery("routes", set_as_current=False)
    app.conf.task_routes = conv_tasks_routes()
    app.conf.task_queues = conv_tasks_queues()
    app.conf.task_default_queue = TASK_QUEUE
    router = app.amqp.router

    def queue_of(name: str) -> str:
        return str(router.route({}, name)["queue"].name)

    assert queue_of("conv_tasks.node.converge") == NODE_QUEUE
    assert queue_of("conv_tasks.beat.watchdog") == NODE_QUEUE
    assert queue_of("conv_tasks.stack.list") == TASK_QUEUE
    assert queue_of("conv_tasks.stack.create") == TASK_QUEUE


def test_the_transport_path_names_our_transport() -> None:
    conn = Connection("redis://127.0.0.1:1/0", transport=REDIS_TRANSPORT)
    assert conn.get_transport_cls() is Transport
    assert conn.transport.driver_type == "redis"  # Celery still treats it as its Redis broker


def test_a_channel_of_a_closed_connection_says_it_lost_the_connection() -> None:
    # What kombu leaves behind once Celery collected the connection: a channel whose transport
    # no longer has a connection. Its Redis pool cannot be rebuilt; that is a connection error
    # (Celery reconnects), not an AttributeError (the worker exits). The real sequence, against
    # a real server, is in tests/chaos/test_chaos_redis_restart.py.
    channel = Channel.__new__(Channel)
    channel.connection = SimpleNamespace(client=None)
    with pytest.raises(redis.exceptions.ConnectionError, match="closed"):
        channel._connparams()
