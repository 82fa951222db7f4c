"""The service the ConvTasks::Celery::Task benchmark calls: one task that answers at once.

`bench.svc.echo` deduplicates on its idempotency key as the type's contract asks (a Redis
SET NX, one round trip, so that the bare call and the resource's call cost the service the
same) and returns a record-like answer. Workers: `celery -A benchmarks.celery_task_service
worker`; its broker and result backend come from BENCH_SERVICE_BROKER_URL and
BENCH_SERVICE_RESULT_BACKEND (the benchmark's private redis-server).
"""

from __future__ import annotations

import os
from typing import Any

import redis
from celery import Celery

QUEUE = "bench.svc"
ECHO = "bench.svc.echo"

app = Celery("bench_celery_task_service", set_as_current=False)
app.conf.update(
    broker_url=os.environ.get("BENCH_SERVICE_BROKER_URL", "redis://127.0.0.1:6379/3"),
    result_backend=os.environ.get("BENCH_SERVICE_RESULT_BACKEND", "redis://127.0.0.1:6379/4"),
    broker_connection_retry_on_startup=True,
    task_default_queue=QUEUE,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    worker_send_task_events=False,
    worker_hijack_root_logger=False,
)

_keys: dict[int, redis.Redis] = {}


def _store() -> redis.Redis:
    client = _keys.get(os.getpid())
    if client is None:
        client = _keys[os.getpid()] = redis.Redis.from_url(app.conf.result_backend)
    return client


@app.task(name=ECHO)
def echo(idempotency_key: str, n: int = 0, **fields: Any) -> dict[str, Any]:
    _store().set(f"bench:svc:{idempotency_key}", n, nx=True, ex=3600)
    return {"id": idempotency_key, "n": n, **fields}
