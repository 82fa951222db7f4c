"""`conv-tasks api schema [TASK]`: the JSON Schemas of the public tasks' kwargs and results."""

from __future__ import annotations

import json

import click


@click.group()
def api() -> None:
    """The public task interface: what a service sends and gets back."""


@api.command("schema")
@click.argument("task", required=False)
def api_schema(task: str | None) -> None:
    """Print the JSON Schemas (Draft 2020-12) of TASK's kwargs and result, or of every task.

    One task: {"task", "kwargs", "result"}; every task: an object of those by task name.
    """
    from conv_tasks.tasks.contracts import contracts, public_tasks

    if task is not None and task not in public_tasks():
        known = ", ".join(public_tasks())
        raise click.ClickException(f"{task} is not a public task. Public tasks: {known}")
    found = contracts(task)
    click.echo(json.dumps(found[task] if task is not None else found, indent=2))
