"""The baseline: a bare Celery app on conv_tasks' broker, doing nothing but hops.

No result backend, no task events, no STARTED state; late acknowledgement and
a prefetch of one like conv_tasks, JSON like conv_tasks, and its own queue.
What a task costs here is what any Celery task costs on this broker, so the
engine benchmark divides by it.

- relay: a no-op task that sends the next one until none remain, then pushes
  to a Redis list the benchmark waits on (one hop per task).
- fan-in: a root publishes N no-op leaves in one kombu batch; each leaf
  decrements a counter, and the one that reaches zero sends the sink, which
  pushes to that list.

Workers: `celery -A benchmarks.bare_app worker` (the benchmark starts them).
The broker and the Redis database for the keys come from conv_tasks.settings
(CONV_TASKS_BROKER_URL, CONV_TASKS_REDIS_URL).
"""

from __future__ import annotations

import os

import redis
from celery import Celery

from conv_tasks.settings import Settings

QUEUE = "bench_bare"
RELAY = "bench.bare.relay"
FAN_ROOT = "bench.bare.fan_root"
FAN_LEAF = "bench.bare.fan_leaf"
FAN_SINK = "bench.bare.fan_sink"

_settings = Settings.from_env()

app = Celery("bench_bare")
app.conf.update(
    broker_url=_settings.broker_url,
    broker_connection_retry_on_startup=True,
    task_default_queue=QUEUE,
    task_ignore_result=True,
    task_track_started=False,
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    worker_send_task_events=False,
    task_send_sent_event=False,
    task_serializer="json",
    accept_content=["json"],
    worker_hijack_root_logger=False,
)

_keys: dict[int, redis.Redis] = {}


def keys() -> redis.Redis:
    """This process's connection to the Redis database holding counters and done marks."""
    client = _keys.get(os.getpid())
    if client is None:
        client = _keys[os.getpid()] = redis.Redis.from_url(_settings.redis_url)
    return client


@app.task(name=RELAY)
def relay(remaining: int, done_key: str) -> None:
    if remaining > 1:
        app.send_task(RELAY, kwargs={"remaining": remaining - 1, "done_key": done_key})
    else:
        keys().rpush(done_key, 1)


@app.task(name=FAN_ROOT)
def fan_root(width: int, counter_key: str, done_key: str) -> None:
    keys().set(counter_key, width)
    leaf = {"counter_key": counter_key, "done_key": done_key}
    with app.producer_or_acquire() as producer, producer.batch():
        for _ in range(width):
            app.send_task(FAN_LEAF, kwargs=leaf, producer=producer)


@app.task(name=FAN_LEAF)
def fan_leaf(counter_key: str, done_key: str) -> None:
    if keys().decr(counter_key) == 0:
        app.send_task(FAN_SINK, kwargs={"done_key": done_key})


@app.task(name=FAN_SINK)
def fan_sink(done_key: str) -> None:
    keys().rpush(done_key, 1)
