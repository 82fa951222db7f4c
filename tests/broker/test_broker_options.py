"""Which broker a URL names, and what Celery is told for each (no broker needed)."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import kombu.transport
import pytest
import redis
from kombu import Connection
from kombu.transport import TRANSPORT_ALIASES

from conv_tasks.broker import redis_transport
from conv_tasks.broker.options import (
    NODE_QUEUE,
    TASK_QUEUE,
    BrokerKind,
    QueueType,
    broker_countdown,
    broker_kind,
    broker_options,
    conv_tasks_queues,
    conv_tasks_routes,
    delayed_by_broker,
)
from conv_tasks.broker.redis_transport import TRANSPORT_PATH, Channel, Transport


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


def test_redis_gets_the_visibility_timeout() -> None:
    # A sentinel:// list gets them too, and its master (tests/test_sentinel_urls.py).
    for url in ("redis://127.0.0.1:6379/0", "redis+socket:///run/redis.sock"):
        options = broker_options(url, visibility_timeout=42.0)
        assert options.kind is BrokerKind.REDIS
        assert options.transport_options == {
            "visibility_timeout": 42.0,
            "unacked_restore_interval": 10,
            "unacked_restore_throttle": 1,
        }


def test_rabbitmq_gets_publisher_confirms_and_no_redis_options() -> None:
    options = broker_options("amqp://guest:guest@127.0.0.1:5672/conv", visibility_timeout=42.0)
    assert options.kind is BrokerKind.RABBITMQ
    assert options.transport_options == {"confirm_publish": True}


def test_only_rabbitmq_gets_quorum_queues() -> None:
    for url, expected in (
        ("amqp://guest:guest@127.0.0.1:5672/conv", QueueType.QUORUM),
        ("redis://127.0.0.1:6379/0", QueueType.CLASSIC),
        ("sentinel://10.0.0.1:26379", QueueType.CLASSIC),
        ("memory://", QueueType.CLASSIC),
    ):
        options = broker_options(url, visibility_timeout=1.0, queue_type=QueueType.QUORUM)
        assert options.queue_type is expected, url
    classic = broker_options("amqp://h//", visibility_timeout=1.0, queue_type=QueueType.CLASSIC)
    assert classic.queue_type is QueueType.CLASSIC
    # Another service's broker (a Celery connection) makes no claim on its queues.
    assert broker_options("amqp://h//", visibility_timeout=1.0).queue_type is QueueType.CLASSIC


def test_classic_queues_are_durable_on_one_direct_exchange_as_before() -> None:
    requests, nodes = conv_tasks_queues(QueueType.CLASSIC)
    assert requests.name == TASK_QUEUE and requests.routing_key == TASK_QUEUE
    assert nodes.name == NODE_QUEUE and nodes.routing_key == NODE_QUEUE
    for queue in (requests, nodes):
        assert queue.durable and not queue.auto_delete
        assert queue.exchange.name == TASK_QUEUE and queue.exchange.durable
        assert queue.exchange.type == "direct"
        assert not queue.queue_arguments  # a classic queue, not a quorum queue
    assert not delayed_by_broker([requests, nodes])


def test_quorum_queues_put_nodes_on_a_topic_exchange_and_requests_where_callers_send() -> None:
    requests, nodes = conv_tasks_queues(QueueType.QUORUM)
    for queue in (requests, nodes):
        assert queue.durable and not queue.auto_delete and not queue.exclusive
        assert queue.queue_arguments == {"x-queue-type": "quorum"}
        assert queue.routing_key == queue.name and queue.exchange.durable
    # A foreign caller's Celery declares `conv_tasks` as a direct exchange: it stays one.
    assert (requests.exchange.name, requests.exchange.type) == (TASK_QUEUE, "direct")
    # Native delayed delivery binds only non-direct exchanges: the node queue's is a topic.
    assert (nodes.exchange.name, nodes.exchange.type) == (NODE_QUEUE, "topic")
    assert delayed_by_broker([requests, nodes])


@pytest.mark.parametrize(("countdown", "seconds"), [(0.2, 1), (1.0, 1), (1.01, 2), (59.5, 60)])
def test_countdowns_become_whole_seconds_rounded_up(countdown: float, seconds: int) -> None:
    # Celery truncates a countdown to pick the delay queues and refuses one under a second.
    assert broker_countdown(countdown) == seconds


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
    conn = Connection("redis://127.0.0.1:1/0", transport=TRANSPORT_PATH)
    assert conn.get_transport_cls() is Transport
    assert conn.transport.driver_type == "redis"  # Celery still treats it as its Redis broker


def test_registered_redis_urls_mean_our_transport_and_stay_redis_urls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As kombu ships them (the test's process may have registered ours already); restored after.
    for scheme in ("redis", "rediss"):
        monkeypatch.setitem(TRANSPORT_ALIASES, scheme, "kombu.transport.redis:Transport")
    monkeypatch.setattr(kombu.transport, "_transport_cache", {})
    assert Connection("redis://127.0.0.1:1/0").get_transport_cls() is not Transport
    redis_transport.register()
    redis_transport.register()  # twice is once
    for url in ("redis://:s3cret@127.0.0.1:1/0", "rediss://127.0.0.1:1/0"):
        conn = Connection(url)
        assert conn.get_transport_cls() is Transport
        # What Flower reads to choose its broker client: the scheme, not an import path.
        shown = conn.as_uri()
        assert shown.split("://")[0] == url.split("://")[0] and "s3cret" not in shown
    assert Connection("redis+socket:///run/redis.sock").get_transport_cls() is Transport
    # Sentinel has a transport of its own (ours too: tests/test_sentinel_urls.py).
    assert Connection("sentinel://127.0.0.1:1").get_transport_cls() is not Transport


def test_the_celery_app_speaks_redis_urls_through_our_transport() -> None:
    # A process of its own, as a worker or Flower starts: only celeryconfig registers ours.
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from conv_tasks.tasks.app import app\n"
            "with app.connection_for_write() as conn:\n"
            "    print(conn.as_uri(), type(conn.transport).__module__)",
        ],
        env={**os.environ, "CONV_TASKS_BROKER_URL": "redis://:s3cret@127.0.0.1:1/3"},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert shown == ["redis://:**@127.0.0.1:1/3", "conv_tasks.broker.redis_transport"]


def test_a_channel_of_a_closed_connection_says_it_lost_the_connection() -> None:
    # What kombu leaves behind once Celery collected the connection: a channel whose transport
    # no longer has a connection. Its Redis pool cannot be rebuilt; that is a connection error
    # (Celery reconnects), not an AttributeError (the worker exits). The real sequence, against
    # a real server, is in tests/chaos/test_chaos_redis_restart.py.
    channel = Channel.__new__(Channel)
    channel.connection = SimpleNamespace(client=None)
    with pytest.raises(redis.exceptions.ConnectionError, match="closed"):
        channel._connparams()


def test_a_channel_builds_one_redis_client_per_pool(redis_client: object) -> None:
    # kombu's channel built a redis.Redis (copying redis-py's ~170 response callbacks) for
    # every publish, acknowledgement and unacknowledged-set write: 3 to 4 per task.
    with Connection(os.environ["CONV_TASKS_REDIS_URL"], transport=Transport) as conn:
        channel = conn.default_channel
        first = channel._create_client()
        assert channel._create_client() is first
        with channel.conn_or_acquire() as client:
            assert client is first
        channel._disconnect_pools()  # what a reconnect does: a new pool gets a new client
        again = channel._create_client()
        assert again is not first
        assert again.connection_pool is channel.pool
        assert channel._create_client(asynchronous=True) is not again
