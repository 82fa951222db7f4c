"""Requests sent while no worker runs: a late read is dropped, a retried create makes one stack.

The workers here have a broker of their own (a private redis-server), so the
session's workers cannot take the messages meant to wait.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from celery.exceptions import TimeoutError as CeleryTimeoutError
from private_services import PrivateRedis, celery_app, wait_for_workers
from sqlalchemy import select

from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {"box": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}}},
}


@pytest.fixture
def idle(database_url: str, redis_client: object, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A broker nobody consumes yet, its app, and processes ready to start workers on it."""
    broker = PrivateRedis()
    broker.start()
    # Results and SyncPoints on the same private server: the client app (celery_app) reads only
    # this env, the workers the run's too; on two servers a result would never reach the client.
    env = {
        "CONV_TASKS_DATABASE_URL": database_url,
        "CONV_TASKS_BROKER_URL": broker.url(0),
        "CONV_TASKS_REDIS_URL": broker.url(1),
        "CONV_TASKS_RESULT_BACKEND": broker.url(2),
        "CONV_TASKS_REDIS_PREFIX": f"late-{uuid.uuid4().hex[:6]}",
    }
    processes = CeleryProcesses(tmp_path / "logs", env=env, suffix=uuid.uuid4().hex[:6])
    app = celery_app(env)
    try:
        yield {"app": app, "processes": processes}
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()
        broker.stop()


def _start(processes: CeleryProcesses, app: Celery) -> None:
    processes.start_worker("w1")
    processes.start_worker("w2")
    wait_for_workers(app, {processes.hostname("w1"), processes.hostname("w2")})


def _stacks(tenant: str) -> list[str]:
    with session_scope() as session:
        return list(session.scalars(select(Stack.id).where(Stack.tenant == tenant)))


def test_a_create_retried_after_a_timeout_makes_one_stack(idle: dict[str, Any]) -> None:
    app, processes = idle["app"], idle["processes"]
    tenant = f"late-{uuid.uuid4().hex[:6]}"
    key = uuid.uuid4().hex
    impatient = Client(app, tenant=tenant, timeout=1)
    with pytest.raises(CeleryTimeoutError):
        impatient.create("late", TEMPLATE, idempotency_key=key)  # nobody consumes: it waits
    _start(processes, app)
    retried = Client(app, tenant=tenant, timeout=30).create("late", TEMPLATE, idempotency_key=key)
    # The late first request ran too (FIFO, or both raced and one lost): still one stack.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not _stacks(tenant):
        time.sleep(0.2)
    assert _stacks(tenant) == [retried["stack_id"]]


def test_a_read_nobody_waits_for_any_more_is_dropped(idle: dict[str, Any]) -> None:
    app, processes = idle["app"], idle["processes"]
    tenant = f"late-{uuid.uuid4().hex[:6]}"
    late = app.send_task("conv_tasks.stack.list", kwargs={"tenant": tenant}, expires=1)
    with pytest.raises(CeleryTimeoutError):
        late.get(timeout=1.5)
    _start(processes, app)
    answered = app.send_task("conv_tasks.stack.list", kwargs={"tenant": tenant}, expires=30)
    assert answered.get(timeout=30)["ok"] is True
    # The later read has been answered, so the worker already saw the expired one: dropped.
    assert late.state == "REVOKED"
