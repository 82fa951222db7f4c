"""A Client's requests carry no task-sent event, even where CONV_TASKS_TASK_SENT_EVENTS=1
(issue 20): a sent event shows the sender's own kwargs in Flower until a worker takes the task.

The sends run in child processes whose environment turns the setting on, as a service's or
an operator's would; the test listens on the broker with an event receiver, as Flower does.
The workers' app in the same child, with the same setting, does send one: the setting is
on there, and the receiver hears such events.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from conv_tasks.client import Client

ON = {**os.environ, "CONV_TASKS_TASK_SENT_EVENTS": "1", "PYTHONUNBUFFERED": "1"}
CONV_TASKS = os.path.join(os.path.dirname(sys.executable), "conv-tasks")

# Deletes of stacks that do not exist: refused, so nothing changes, but not reads (which
# send no task events at all: conv_tasks.tasks.public).
SENDERS = """
import sys

from conv_tasks.client import Client
from conv_tasks.errors import NotFound
from conv_tasks.tasks.app import app

by_client, by_workers_app = sys.argv[1:3]
try:
    Client(tenant=by_client, timeout=30).delete("no-such-stack")
except NotFound:
    pass
app.send_task(
    "conv_tasks.stack.delete",
    kwargs={"tenant": by_workers_app, "stack": "no-such-stack"},
    kwargsrepr=repr({"tenant": by_workers_app}),
).get(timeout=30)
"""


@contextmanager
def _events(client: Client) -> Iterator[list[dict[str, Any]]]:
    """Every task event published while the block runs (and a while after)."""
    seen: list[dict[str, Any]] = []
    stop = threading.Event()
    ready = threading.Event()

    def listen() -> None:
        with client.app.connection_for_read() as conn:
            receiver = client.app.events.Receiver(
                conn, handlers={"*": lambda event: seen.append(dict(event))}
            )
            ready.set()
            for _ in receiver.consume(limit=None, timeout=1, wakeup=True):
                if stop.is_set():
                    break

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ready.wait(10)
    time.sleep(1.0)  # the receiver's queue is bound
    try:
        yield seen
    finally:
        time.sleep(1.5)  # the last events are on their way
        stop.set()
        listener.join(timeout=15)


def _naming(seen: list[dict[str, Any]], kind: str, tenant: str) -> list[dict[str, Any]]:
    return [e for e in seen if e.get("type") == kind and tenant in str(e.get("kwargs", ""))]


def test_client_and_cli_requests_send_no_task_sent_event(client: Client) -> None:
    run = uuid.uuid4().hex[:6]
    by_client, by_workers_app, by_cli = f"sent-c-{run}", f"sent-w-{run}", f"sent-cli-{run}"
    with _events(client) as seen:
        subprocess.run(
            [sys.executable, "-c", SENDERS, by_client, by_workers_app],
            env=ON,
            check=True,
            timeout=120,
        )
        cli = subprocess.run(
            [CONV_TASKS, "--tenant", by_cli, "stack", "delete", "no-such-stack", "--yes"],
            env=ON,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode == 1 and "not found" in cli.stderr, cli.stderr
    # The setting is on in the child, and the receiver hears task-sent events...
    assert _naming(seen, "task-sent", by_workers_app)
    for tenant in (by_client, by_cli):
        # ...and the workers received the Client's and the CLI's requests...
        assert _naming(seen, "task-received", tenant), tenant
        # ...that no task-sent event announced.
        assert not _naming(seen, "task-sent", tenant), _naming(seen, "task-sent", tenant)
