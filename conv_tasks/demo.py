"""`make demo`: a stack through create, update, a failing update that rolls back, and delete.

Starts what it needs on this machine (database and migrations, two worker
processes and beat), prints the progress of every operation live, shows the
resources after each step, and stops its processes at the end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from typing import Any

import click

from conv_tasks.cli import output
from conv_tasks.cli.progress import follow
from conv_tasks.client import Client
from conv_tasks.db.migrate import ensure_database, upgrade


def _tr(value: Any, **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


def _template(resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "description": "conv_tasks demo stack",
        "parameters": {"password": {"type": "string", "hidden": True, "default": "hunter2"}},
        "resources": resources,
        "outputs": {
            "web_url": {
                "value": {
                    "str_replace": {
                        "template": "http://HOST/",
                        "params": {"HOST": {"get_attr": ["web", "output"]}},
                    }
                }
            }
        },
    }


CREATE = _template(
    {
        "network": _tr("net-10.0.0.0/24", wait_secs=0.5),
        "database": {**_tr("db-v1", update_replace=True, wait_secs=0.5), "depends_on": ["network"]},
        "cache": {**_tr("cache-v1"), "depends_on": ["network"]},
        "web": _tr(
            {"list_join": ["-", ["web", {"get_attr": ["database", "output"]}]]}, wait_secs=0.5
        ),
    }
)
UPDATE = _template(
    {
        "network": _tr("net-10.0.0.0/24", wait_secs=0.5),
        "database": {**_tr("db-v2", update_replace=True, wait_secs=0.5), "depends_on": ["network"]},
        "web": _tr({"list_join": ["-", ["web2", {"get_attr": ["database", "output"]}]]}),
        "queue": {**_tr("queue-v1"), "depends_on": ["network"]},
    }
)
FAILING = _template(
    {
        "network": _tr("net-10.0.0.0/24"),
        "database": {**_tr("db-v2", update_replace=True), "depends_on": ["network"]},
        "web": _tr("web-broken", fail_on=["update"]),
        "queue": {**_tr("queue-v2"), "depends_on": ["web"]},
    }
)


def _start(name: str, *args: str) -> subprocess.Popen[bytes]:
    log = open(f"/tmp/conv-tasks-demo-{name}.log", "ab")  # noqa: SIM115 - lives with the process
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "conv_tasks.tasks.app", *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _step(client: Client, title: str, stack: str, started: dict[str, Any]) -> None:
    click.secho(f"\n== {title}", bold=True)
    final = follow(client, started, timeout=300)
    if not final["status"].startswith("DELETE"):
        output.table(client.resources(stack), ["name", "type", "version", "physical_id", "status"])
        outputs = client.outputs(stack)
        if outputs:
            click.echo("outputs: " + ", ".join(f"{k}={v.get('value')}" for k, v in outputs.items()))


def main() -> None:
    click.echo("preparing the database ...")
    ensure_database()
    upgrade()
    run = uuid.uuid4().hex[:6]
    procs = [
        _start("w1", "worker", "-c", "2", "-n", f"demo1-{run}@%h", "--without-gossip"),
        _start("w2", "worker", "-c", "2", "-n", f"demo2-{run}@%h", "--without-gossip"),
        _start("beat", "beat", "--schedule", f"/tmp/conv-tasks-demo-beat-{run}"),
    ]
    try:
        from conv_tasks.tasks.app import app

        deadline = time.monotonic() + 60
        while len(app.control.ping(timeout=1.0) or []) < 2:
            if time.monotonic() > deadline:
                raise SystemExit("workers did not start; see /tmp/conv-tasks-demo-*.log")
        click.echo("two workers and beat are up")
        client = Client(tenant=f"demo-{run}")
        name = "demo"
        _step(client, "create", name, client.create(name, CREATE))
        _step(
            client,
            "update: web changed in place, database replaced, cache removed, queue added",
            name,
            client.update(name, UPDATE),
        )
        _step(client, "update that fails (web) and rolls back", name, client.update(name, FAILING))
        _step(client, "delete", name, client.delete(name))
        click.secho("\ndemo finished", bold=True)
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
