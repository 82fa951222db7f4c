"""What a Celery worker does with its Redis broker connection when the broker goes away.

Replayed in the test process against a private server, with a chosen kombu transport: kombu
5.7.0's own transports turn the close that follows into an AttributeError (the worker exits),
ours into a connection error (the worker reconnects); see conv_tasks/broker/redis_transport.py.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any

from kombu import Connection, Consumer, Exchange, Queue


def replay_connection_loss(
    url: str,
    halt: Callable[[], object],
    transport: str,
    transport_options: Mapping[str, Any] | None = None,
) -> None:
    """The worker holds one message unacknowledged on its task channel and has a second
    channel with an auto-delete fanout queue (its remote-control box). `halt` takes the broker
    away; Celery collects the connection, then closes it."""
    conn = Connection(url, transport=transport, transport_options=dict(transport_options or {}))
    work = Queue("work", Exchange("work"), "work")
    with conn.Producer() as producer:
        producer.publish({"n": 1}, exchange=work.exchange, routing_key="work", declare=[work])
    held: list[Any] = []
    consumer = Consumer(conn.default_channel, [work], callbacks=[lambda _b, m: held.append(m)])
    consumer.qos(prefetch_count=2)
    consumer.consume()
    control = Queue("control", Exchange("control", type="fanout"), auto_delete=True)
    Consumer(conn.channel(), [control], callbacks=[lambda _b, _m: None]).consume()
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        with contextlib.suppress(TimeoutError):
            conn.drain_events(timeout=0.5)
    assert held, "the message never arrived"
    conn.transport.cycle.on_poll_start()  # the event loop's next BRPOP, as a worker would send
    halt()
    with contextlib.suppress(Exception):  # Celery ignores whatever collecting raises
        conn.collect(socket_timeout=1.0)
    conn.close()  # what Celery calls next; only a connection error may come out of it
