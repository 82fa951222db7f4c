"""conv_tasks on RabbitMQ quorum queues: what RabbitMQ holds, where a countdown waits, and a
worker or beat that refuses to start on queues of another type (or an unknown type).

The run's own workers use quorum queues (the default on RabbitMQ, and `make test-rabbitmq`'s):
RabbitMQ lists conv_tasks' two queues and Celery's delay queues as quorum queues, and a stack
whose resource polls completes. On a vhost of their own, without a worker that consumes the
node queue, a node's countdown is seen waiting in RabbitMQ's delay queues and then arriving in
the node queue. And a worker and beat (and the CLI) meeting queues of the other type stop with
one line naming CONV_TASKS_RABBITMQ_QUEUE_TYPE, changing nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from kombu import Connection

from conv_tasks.broker.options import NODE_QUEUE, TASK_QUEUE, QueueType, conv_tasks_queues
from conv_tasks.celery_processes import CeleryProcesses
from conv_tasks.client import Client
from conv_tasks.tasks.node_summary import NODE_TASK
from conv_tasks.tasks.runtime import CeleryDispatcher
from conv_tasks.testing.services import celery_app, wait_for_workers

pytestmark = pytest.mark.broker("rabbitmq", reason="quorum queues are RabbitMQ's")

SETTING = "CONV_TASKS_RABBITMQ_QUEUE_TYPE"
DELAY_QUEUES = {f"celery_delayed_{level}" for level in range(28)}


def _vhost(url: str) -> str:
    return unquote(urlsplit(url).path[1:])


def _queue_types(url: str) -> dict[str, str]:
    """Every queue of `url`'s vhost, and its type, as RabbitMQ lists them."""
    listed = subprocess.run(
        ["rabbitmqctl", "-q", "list_queues", "-p", _vhost(url), "name", "type"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.splitlines()
    rows = [line.split("\t") for line in listed[1:] if line.strip()]  # the first is the heading
    return dict(rows)


def _ready(url: str, names: set[str]) -> dict[str, int]:
    """Messages ready in each named queue, by a passive declare (exact at once, where
    rabbitmqctl's counts of a quorum queue trail by its statistics interval)."""
    with Connection(url) as conn:
        channel = conn.channel()
        return {name: int(channel.queue_declare(name, passive=True)[1]) for name in names}


def _eventually(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:.0f}s")
        time.sleep(0.5)


def _env(broker_url: str, **extra: str) -> dict[str, str]:
    return {**os.environ, "CONV_TASKS_BROKER_URL": broker_url, **extra}


def test_the_runs_queues_are_of_its_type_and_a_polling_resource_completes(
    client: Client,
) -> None:
    # Three polls at least: the action waits 2.5 s, each poll a countdown of whole seconds.
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "slow": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 2.5}},
        },
    }
    created = client.create(f"quorum-{uuid.uuid4().hex[:6]}", template)
    final = client.wait(created["stack_id"], timeout=120, interval=0.3)
    assert final["status"] == "CREATE_COMPLETE", final

    # Quorum unless the run asked for classic (make test-rabbitmq RABBITMQ_QUEUE_TYPE=classic).
    wanted = os.environ.get(SETTING) or "quorum"
    queues = _queue_types(os.environ["CONV_TASKS_BROKER_URL"])
    assert queues[TASK_QUEUE] == wanted, queues
    assert queues[NODE_QUEUE] == wanted, queues
    # Celery's delay ladder, declared by the workers: a delayed poll is replicated too.
    ladder = {name: queues[name] for name in DELAY_QUEUES if name in queues}
    expected = dict.fromkeys(DELAY_QUEUES, "quorum") if wanted == "quorum" else {}
    assert ladder == expected, queues


@pytest.fixture
def request_worker(
    database_url: str, redis_client: object, private_rabbitmq_url: str, tmp_path: Path
) -> Iterator[Any]:
    """A worker on a vhost of its own that consumes requests only: it declares the queues and
    Celery's delay ladder as any worker does, but takes no node."""
    env = _env(private_rabbitmq_url, **{SETTING: "quorum"})
    processes = CeleryProcesses(tmp_path, env=env, suffix="quorum")
    app = celery_app(env)
    try:
        processes.start_worker("requests", concurrency=1, pool="solo")
        wait_for_workers(app, {processes.hostname("requests")})
        [node] = [n for reply in app.control.ping(timeout=1.0) for n in reply]
        answer = app.control.cancel_consumer(NODE_QUEUE, destination=[node], reply=True)
        assert answer and "ok" in answer[0][node], answer
        yield app
        # kombu's warning that the request queue's direct exchange cannot delay is left out.
        assert "is a direct exchange" not in (tmp_path / "requests.log").read_text()
    finally:
        processes.stop_all(timeout=10)
        app.pool.force_close_all()


def test_a_countdown_waits_in_rabbitmq_then_arrives_in_the_node_queue(
    request_worker: Any, private_rabbitmq_url: str
) -> None:
    app = request_worker
    dispatcher = CeleryDispatcher(app)
    payload = {"stack": "probe", "node": "update:probe"}
    # 6 s is two rungs of the ladder (4 s, then 2 s); 0.2 s becomes 1 s (Celery refuses less).
    dispatcher.node(payload, countdown=6.0)
    dispatcher.node(payload, countdown=0.2)
    ready = _ready(private_rabbitmq_url, {NODE_QUEUE, *DELAY_QUEUES})
    # The 6 s one waits in the ladder, in no worker; the 1 s one may have arrived already.
    assert sum(ready[name] for name in DELAY_QUEUES) >= 1, ready
    assert ready[NODE_QUEUE] <= 1, ready

    _eventually(
        lambda: _ready(private_rabbitmq_url, {NODE_QUEUE})[NODE_QUEUE] == 2,
        "both countdowns arriving",
    )
    assert sum(_ready(private_rabbitmq_url, DELAY_QUEUES).values()) == 0
    with Connection(private_rabbitmq_url) as conn:
        channel = conn.channel()
        for _ in range(2):
            message = channel.basic_get(NODE_QUEUE, no_ack=True)
            assert message is not None
            assert message.headers["task"] == NODE_TASK
            assert message.headers["eta"]  # a countdown task, delivered when due


def _declare(url: str, queue_type: QueueType) -> None:
    """conv_tasks' queues, as an older (classic) or another deployment's workers declared them."""
    with Connection(url) as conn:
        for queue in conv_tasks_queues(queue_type):
            queue.bind(conn.channel()).declare()


def _stopped(processes: CeleryProcesses, name: str) -> tuple[int, str]:
    """How the named process ended (it must, by itself), and its log."""
    code = processes.procs[name].wait(timeout=90)
    return code, (processes.log_dir / f"{name}.log").read_text()


@pytest.mark.parametrize(
    ("held", "wanted"), [(QueueType.CLASSIC, QueueType.QUORUM), (QueueType.QUORUM, "classic")]
)
def test_a_worker_and_beat_stop_with_one_line_on_queues_of_another_type(
    database_url: str,
    redis_client: object,
    private_rabbitmq_url: str,
    tmp_path: Path,
    held: QueueType,
    wanted: str,
) -> None:
    _declare(private_rabbitmq_url, held)
    env = _env(private_rabbitmq_url, **{SETTING: wanted})
    processes = CeleryProcesses(tmp_path, env=env, suffix="mismatch")
    try:
        processes.start_worker("worker", concurrency=1, pool="solo")
        processes.start_beat("beat")
        results = {name: _stopped(processes, name) for name in ("worker", "beat")}
    finally:
        processes.stop_all(timeout=10)
    expected = (
        f"{SETTING}: is {wanted}, but RabbitMQ's queue '{TASK_QUEUE}' in vhost "
        f"'{_vhost(private_rabbitmq_url)}' is a {held} queue; set {SETTING}={held}, or move the "
        f"queues to {wanted} queues"
    )
    for name, (code, log) in results.items():
        assert code == 1, (name, log[-3000:])
        lines = [line for line in log.splitlines() if SETTING in line]
        assert len(lines) == 1, (name, log[-3000:])
        assert f"The {name} stops. Invalid configuration: {expected}" in lines[0]
        assert "Traceback" not in log, (name, log[-3000:])
    # Nothing changed: the queues are as they were.
    queues = _queue_types(private_rabbitmq_url)
    assert {queues[TASK_QUEUE], queues[NODE_QUEUE]} == {str(held)}, queues


def test_the_cli_says_the_same_line_when_rabbitmq_refuses_its_request(
    private_rabbitmq_url: str,
) -> None:
    # A CLI host left on the old type: its request's queue declaration is refused.
    _declare(private_rabbitmq_url, QueueType.QUORUM)
    env = _env(private_rabbitmq_url, **{SETTING: "classic"}, CONV_TASKS_TENANT="quorum")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("conv-tasks")), "--timeout", "10", "stack", "list"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"ERROR: Invalid configuration: {SETTING}: is classic, but RabbitMQ's queue "
        f"'{TASK_QUEUE}' in vhost '{_vhost(private_rabbitmq_url)}' is a quorum queue; set "
        f"{SETTING}=quorum, or move the queues to classic queues "
        "(docs/operations/rabbitmq.md, 'Moving from classic queues')"
    ], done.stderr


def test_an_unknown_queue_type_stops_the_worker_before_it_declares_anything(
    database_url: str, redis_client: object, private_rabbitmq_url: str, tmp_path: Path
) -> None:
    env = _env(private_rabbitmq_url, **{SETTING: "mirrored"})
    processes = CeleryProcesses(tmp_path, env=env, suffix="unknown")
    try:
        processes.start_worker("worker", concurrency=1, pool="solo")
        code, log = _stopped(processes, "worker")
    finally:
        processes.stop_all(timeout=10)
    assert code != 0, log[-3000:]
    lines = [line for line in log.splitlines() if SETTING in line]
    assert lines == [
        f"conv_tasks.errors.InvalidInput: Invalid configuration: {SETTING}: must be one of "
        "quorum, classic, got 'mirrored'"
    ], log[-3000:]
    assert _queue_types(private_rabbitmq_url) == {}
