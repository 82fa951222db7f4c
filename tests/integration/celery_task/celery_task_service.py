"""Another service, for the tests of ConvTasks::Celery::Task: a Celery app of its own (it
imports nothing of conv_tasks), with its own queue, keeping records in a Redis hash.

Its tasks follow the contract the type documents: each takes `idempotency_key` and
deduplicates on it, atomically (HSETNX), so that a call sent twice, even two runs at once,
makes one record. A record's id is `rec-N`; update and delete find a record by that id or
by the idempotency key that created it (the type's default id). Every run is logged in a
list, so that the tests count the calls the service saw.

Run as `celery -A celery_task_service worker`, with the module's folder on PYTHONPATH and
its settings in the environment: SERVICE_BROKER_URL, SERVICE_RESULT_BACKEND and
SERVICE_STORE_URL (the Redis database of its records), each with the password in it.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import redis
from celery import Celery

QUEUE = "svc.records"
CREATE = "svc.records.create"
UPDATE = "svc.records.update"
DELETE = "svc.records.delete"
FAIL = "svc.records.fail"
SLOW = "svc.records.slow"
NOT_JSON = "svc.records.not_json"
LEAK = "svc.records.leak"

# Keys of the store.
RECORDS = "svc:records"  # record id -> the record, as JSON
CREATED_BY = "svc:created-by"  # idempotency key of a create -> the record id it made
APPLIED = "svc:applied"  # idempotency key of an update -> the record it left, as JSON
CALLS = "svc:calls"  # every run: {"task", "key", "kwargs"}, as JSON
COUNTER = "svc:counter"
STARTED = "svc:slow:started"  # a slow task's key -> its task id
FINISHED = "svc:slow:finished"  # a slow task's key -> 1, once it ran to its end

app = Celery("celery_task_service", set_as_current=False)
app.conf.update(
    broker_url=os.environ.get("SERVICE_BROKER_URL", "redis://127.0.0.1:6379/0"),
    result_backend=os.environ.get("SERVICE_RESULT_BACKEND", "redis://127.0.0.1:6379/1"),
    broker_connection_retry_on_startup=True,
    task_default_queue=QUEUE,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    worker_hijack_root_logger=False,
)

_store: dict[int, redis.Redis] = {}


class RecordRefused(Exception):
    """The service's own error: the tests read its name and message in the resource."""


def store() -> redis.Redis:
    client = _store.get(os.getpid())
    if client is None:
        url = os.environ.get("SERVICE_STORE_URL", "redis://127.0.0.1:6379/3")
        client = _store[os.getpid()] = redis.Redis.from_url(url, decode_responses=True)
    return client


def _log(task: str, key: str, kwargs: dict[str, Any]) -> None:
    store().rpush(CALLS, json.dumps({"task": task, "key": key, "kwargs": kwargs}))


def _find(record_id: str) -> tuple[str, dict[str, Any]] | None:
    """The record with this id, or made by the create with this idempotency key."""
    db = store()
    found = db.hget(RECORDS, record_id)
    if found is None:
        own = db.hget(CREATED_BY, record_id)
        found = db.hget(RECORDS, own) if own else None
        record_id = own or record_id
    return (record_id, json.loads(found)) if found else None


@app.task(name=CREATE)
def create(idempotency_key: str, name: str, delay: float = 0.0, **fields: Any) -> dict[str, Any]:
    _log(CREATE, idempotency_key, {"name": name, **fields})
    time.sleep(delay)
    db = store()
    record_id = f"rec-{db.incr(COUNTER)}"
    if not db.hsetnx(CREATED_BY, idempotency_key, record_id):
        made = _find(idempotency_key)  # a call sent again: the first one's record
        assert made is not None
        return made[1]
    record = {"id": record_id, "name": name, "version": 1, "created_by": idempotency_key, **fields}
    db.hset(RECORDS, record_id, json.dumps(record))
    return record


@app.task(name=UPDATE)
def update(idempotency_key: str, id: str, **fields: Any) -> dict[str, Any]:
    _log(UPDATE, idempotency_key, {"id": id, **fields})
    db = store()
    done = db.hget(APPLIED, idempotency_key)
    if done is not None:
        return dict(json.loads(done))
    found = _find(id)
    if found is None:
        raise RecordRefused(f"there is no record {id}")
    record_id, record = found
    record = {**record, **fields, "version": record["version"] + 1}
    db.hset(RECORDS, record_id, json.dumps(record))
    db.hset(APPLIED, idempotency_key, json.dumps(record))
    return record


@app.task(name=DELETE)
def delete(idempotency_key: str, id: str) -> dict[str, Any]:
    _log(DELETE, idempotency_key, {"id": id})
    found = _find(id)
    if found is not None:
        store().hdel(RECORDS, found[0])
    return {"deleted": found is not None}


@app.task(name=FAIL)
def fail(idempotency_key: str, message: str) -> None:
    _log(FAIL, idempotency_key, {"message": message})
    raise RecordRefused(message)


@app.task(name=SLOW, bind=True)
def slow(self: Any, idempotency_key: str, seconds: float) -> dict[str, Any]:
    _log(SLOW, idempotency_key, {"seconds": seconds})
    store().hset(STARTED, idempotency_key, str(self.request.id))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.1)
    store().hset(FINISHED, idempotency_key, "1")
    return {"slept": seconds}


@app.task(name=NOT_JSON)
def not_json(idempotency_key: str) -> float:
    _log(NOT_JSON, idempotency_key, {})
    return float("nan")  # JSON has no NaN: the result backend holds one anyway


@app.task(name=LEAK)
def leak(idempotency_key: str) -> None:
    _log(LEAK, idempotency_key, {})
    # A careless service: its error names its broker, password and all.
    raise RecordRefused(f"cannot reach {app.conf.broker_url}")
