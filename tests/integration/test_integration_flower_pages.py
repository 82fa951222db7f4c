"""Flower's pages over HTTP, from a real Flower process: the Broker page lists conv_tasks'
queues and their depths on Redis and on RabbitMQ; `make flower`'s task list says which stack,
resource and phase each graph node is, and shows none of the polls of a wait."""

from __future__ import annotations

import ast
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flower_process import broker_queues, celery_flower, column_names, make_flower, running_flower
from integration_support import template, test_resource
from private_rabbitmq import PrivateRabbitMQ, missing
from private_services import PrivateRedis, celery_app, wait_for_workers

from conv_tasks.broker.options import NODE_QUEUE, TASK_QUEUE
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.tasks.node_summary import NODE_TASK

WAITING = 3  # requests left on the request queue with no worker to take them
# The reads a wait sends over and over (`--wait`, `--follow`, Client.wait).
POLLS = ("conv_tasks.stack.show", "conv_tasks.stack.events")


@dataclass(frozen=True)
class PrivateBroker:
    scheme: str
    url: str
    flower_options: tuple[str, ...] = ()
    password: str | None = None


@pytest.fixture(params=["redis", "rabbitmq"])
def private_broker(request: pytest.FixtureRequest) -> Iterator[PrivateBroker]:
    """A broker of the test's own, whichever broker the run uses: a Redis server, or a
    RabbitMQ node with the management API Flower reads queue depths from."""
    if request.param == "redis":
        server = PrivateRedis()
        server.start()
        try:
            yield PrivateBroker("redis", server.url(0))
        finally:
            server.stop()
        return
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    node = PrivateRabbitMQ()
    try:
        node.start()
        # Flower asks <broker host>:15672 unless told; this node's API is on a port of its own.
        yield PrivateBroker("amqp", node.url, (f"--broker_api={node.api_url}",), node.password)
    finally:
        node.stop()


def test_the_broker_page_shows_each_queue_and_its_depth(
    private_broker: PrivateBroker, database_url: str, tmp_path: Path
) -> None:
    env = {**os.environ, "CONV_TASKS_BROKER_URL": private_broker.url}
    app = celery_app(env)
    workers = CeleryProcesses(tmp_path / "workers", env=env, suffix=uuid.uuid4().hex[:6])
    try:
        workers.start_worker("broker-page", concurrency=1, pool="solo")
        wait_for_workers(app, {workers.hostname("broker-page")})
        with running_flower(
            lambda port: celery_flower(port, *private_broker.flower_options),
            env,
            tmp_path / "flower.log",
        ) as flower:

            def shown(wanted: dict[str, dict[str, str]]) -> dict[str, dict[str, str]] | None:
                queues = broker_queues(flower.get("/broker"))
                matches = set(queues) == set(wanted) and all(
                    queues[name][column] == value
                    for name, expected in wanted.items()
                    for column, value in expected.items()
                )
                return queues if matches else None

            # The queues the worker consumes, each with its depth; RabbitMQ's management API
            # also counts their consumers (Redis knows none).
            live = {"messages": "0"}
            if private_broker.scheme == "amqp":
                live["consumers"] = "1"
            flower.until(lambda: shown({TASK_QUEUE: live, NODE_QUEUE: live}), "listed both queues")

            workers.stop_all()
            for _ in range(WAITING):
                app.send_task("conv_tasks.stack.list", kwargs={"tenant": "broker-page"})
            backlog = {TASK_QUEUE: {"messages": str(WAITING)}, NODE_QUEUE: {"messages": "0"}}
            if private_broker.scheme == "amqp":
                backlog[TASK_QUEUE] |= {"ready": str(WAITING), "consumers": "0"}
            flower.until(lambda: shown(backlog), f"showed {WAITING} requests waiting")

            page = flower.get("/broker")
            # The URL Flower shows and chose its client by: the broker's scheme, never our
            # transport's import path, and no password.
            assert f"{private_broker.scheme}://" in page and "redis_transport" not in page
            if private_broker.password:
                assert private_broker.password not in page
                assert private_broker.password not in flower.log_text()
    finally:
        workers.stop_all()
        app.pool.force_close_all()


def _rows_of(rows: list[dict[str, Any]], stack_id: str, name: str) -> list[dict[str, Any]]:
    return [row for row in rows if stack_id in str(row["kwargs"]) or name in str(row["kwargs"])]


def test_make_flower_lists_each_node_s_stack_resource_and_phase_and_no_polls(
    client: Client, tmp_path: Path
) -> None:
    with running_flower(make_flower, os.environ, tmp_path / "flower.log") as flower:
        columns = column_names(flower.get("/tasks"))
        assert columns[:2] == ["name", "kwargs"], columns
        # Flower hears task events once it hears workers' heartbeats.
        flower.until(flower.live_workers, "heard a worker")

        name = f"rows-{uuid.uuid4().hex[:6]}"
        tmpl = template({"quick": test_resource("q"), "slow": test_resource("s", wait_secs=1.5)})
        stack_id = client.create(name, tmpl)["stack_id"]
        polls: list[dict[str, Any]] = []
        # What `--wait` does: the stack and its new events, again and again, until it ends.
        final = client.wait(stack_id, timeout=60, on_event=lambda _e: None, on_poll=polls.append)
        assert final["status"] == "CREATE_COMPLETE"
        assert len(polls) >= 3  # the wait polled: each poll sent both reads

        def nodes_done() -> list[dict[str, Any]] | None:
            rows = _rows_of(flower.tasks(), stack_id, name)
            nodes = [row for row in rows if row["name"] == NODE_TASK]
            slow = [row for row in nodes if "'slow'" in row["kwargs"]]
            finished = all(row["state"] == "SUCCESS" for row in nodes)
            return rows if finished and len(slow) >= 2 and len(nodes) > len(slow) else None

        rows = flower.until(nodes_done, f"listed stack {name}'s nodes, all finished")
        for row in (row for row in rows if row["name"] == NODE_TASK):
            shown = ast.literal_eval(row["kwargs"])
            assert shown["stack"] == name and shown["stack_id"] == stack_id, shown
            assert shown["resource"] in ("quick", "slow") and shown["phase"] == "update"
        # The request that changed something is listed; the wait's reads are not.
        assert any(row["name"] == "conv_tasks.stack.create" for row in rows), rows
        assert not [row for row in rows if row["name"] in POLLS]
        # Flower's search finds a stack's nodes by what their kwargs say
        # (docs/operations/configuration.md).
        found = flower.tasks(f"kwargs:stack={name}")
        assert found and {row["name"] for row in found} == {NODE_TASK}
