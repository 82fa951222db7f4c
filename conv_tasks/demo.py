"""`make demo`: a stack through create, update, a failing update that rolls back, and delete.

Starts what it needs on this machine (database and migrations, two worker
processes and beat), prints the progress of every operation live, shows the
resources after each step, and stops its processes at the end.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

import click

from conv_tasks.celery_processes import CeleryProcesses
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
    procs = CeleryProcesses(Path(tempfile.gettempdir()) / f"conv-tasks-demo-{run}", suffix=run)
    procs.start_worker("demo1")
    procs.start_worker("demo2")
    procs.start_beat()
    try:
        procs.wait_ready()
        click.echo(f"two workers and beat are up (logs in {procs.log_dir})")
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
        procs.stop_all()


if __name__ == "__main__":
    main()
