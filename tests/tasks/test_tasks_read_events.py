"""Which tasks report to monitors: reads (what pollers send over and over) send no task events
unless CONV_TASKS_READ_TASK_EVENTS=1; requests that change something, graph nodes and beat
jobs always do."""

from __future__ import annotations

import os
import subprocess
import sys

from conv_tasks.tasks.app import app
from conv_tasks.tasks.contracts import public_tasks
from conv_tasks.tasks.node_summary import NODE_TASK

READS = {
    "conv_tasks.stack.show",
    "conv_tasks.stack.list",
    "conv_tasks.stack.resources",
    "conv_tasks.stack.events",
    "conv_tasks.stack.outputs",
    "conv_tasks.stack.template",
    "conv_tasks.stack.graph",
    "conv_tasks.stack.history",
    "conv_tasks.stack.overview",
    "conv_tasks.resource.show",
    "conv_tasks.deployment.list",
    "conv_tasks.deployment.show",
}


def test_reads_send_no_task_events_and_every_other_task_does() -> None:
    names = set(public_tasks())
    assert names > READS
    for name in sorted(names):
        assert app.tasks[name].send_events is (name not in READS), name
    # What changes a stack, and what an agent polls with its credential, stays in Flower.
    for name in ("conv_tasks.stack.create", "conv_tasks.deployment.metadata", NODE_TASK):
        assert app.tasks[name].send_events is True, name
    assert app.tasks["conv_tasks.beat.watchdog"].send_events is True


def test_read_task_events_bring_the_reads_back() -> None:
    # The flag is read when the worker registers its tasks: a process of its own.
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from conv_tasks.tasks.app import app\n"
            "app.loader.import_default_modules()\n"
            "print(app.tasks['conv_tasks.stack.show'].send_events)",
        ],
        env={**os.environ, "CONV_TASKS_READ_TASK_EVENTS": "1"},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    assert shown == "True"
