"""kombu's Redis transport, with a closed channel that fails like a lost connection.

Why this exists (kombu 5.7.0, celery 5.7.0, the newest releases): when the
Redis broker restarts, a worker's consumer loses its connection and Celery
first collects it (`Connection.collect()`), then closes it. Collecting closes
the channels one by one and stops at the first that fails: the remote-control
channel's close deletes its auto-delete queue, which raises ConnectionError
while Redis is down, so the task channel is never closed. kombu then detaches
the transport from its connection anyway (`transport.client = None`). The
close that follows reaches the task channel; if it holds unacknowledged
messages (a countdown poll waiting in the worker, a task running with
`acks_late`), it restores them, which builds a new Redis pool from
`transport.client.hostname` and raises AttributeError. That is no connection
error, so Celery logs "Unrecoverable error" and the worker exits. A late
acknowledgement on such a channel, after the worker reconnected, goes the same
way.

Here a channel whose transport has been detached raises redis' ConnectionError
instead, which is the truth: it cannot reach its broker any more. kombu and
Celery treat that as the lost connection it is: the close goes on, and the
worker reconnects. The messages stay in Redis' unacknowledged set (when Redis
kept them) and come back after the visibility timeout, as for a killed
worker. Remove it once a kombu release no longer builds a pool from a
detached transport.

It also keeps one Redis client per channel and pool for the commands kombu
runs outside the consumer's BRPOP (publish, acknowledge, the unacknowledged
set): kombu's own builds a new `redis.Redis` for each, and each copies redis-py's
table of about 170 response callbacks, some 3 to 4 times per task a worker runs.
A client is a stateless front of its pool (the pool hands out the connections),
so sharing it changes nothing but the cost; a new pool (after a reconnect) gets
a new client.

`register()` makes it what kombu's own scheme names `redis` and `rediss` mean,
so the broker URL stays `redis://…` wherever it is shown or parsed again:
Flower chooses its broker client by that URL's scheme (a `broker_transport`
import path became the scheme, and Flower's Broker page said "'redis' broker
is not supported"), and logs and `celery inspect` show it as written.
"""

from __future__ import annotations

from typing import Any

import kombu.transport
from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

TRANSPORT_PATH = "conv_tasks.broker.redis_transport:Transport"
# The names kombu gives its plain Redis transport: redis://, rediss:// and redis+socket:// URLs.
# Sentinel (`sentinel://`) has a transport of its own and keeps it.
REDIS_SCHEMES = ("redis", "rediss")
DETACHED = "this broker channel belongs to a connection that was closed; reconnect and retry"


class Channel(kombu_redis.Channel):
    _shared_client: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:
            return super()._create_client(asynchronous=True)
        pool = self.pool
        client = self._shared_client
        if client is None or client.connection_pool is not pool:
            client = self._shared_client = super()._create_client()
        return client

    def _disconnect_pools(self) -> None:
        self._shared_client = None
        super()._disconnect_pools()

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection is None or self.connection.client is None:
            raise RedisConnectionError(DETACHED)
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)
        return params


class Transport(kombu_redis.Transport):
    Channel = Channel


def register() -> None:
    """Make redis:// and rediss:// URLs mean our transport, in this process, for every kombu
    connection (Celery's and any other). It only adds to kombu's: a connection that never
    meets a detached channel behaves exactly as with kombu's own. Idempotent."""
    for scheme in REDIS_SCHEMES:
        kombu.transport.TRANSPORT_ALIASES[scheme] = TRANSPORT_PATH
        # kombu remembers the class a name resolved to: a connection made before this call
        # (another app in the process) would otherwise keep kombu's for every later one.
        getattr(kombu.transport, "_transport_cache", {}).pop(scheme, None)
