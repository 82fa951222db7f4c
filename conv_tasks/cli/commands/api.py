"""`conv-tasks api schema [TASK]` (the public tasks' JSON Schemas), `api serve` (the HTTP edge)
and `api token-hash`."""

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
    from conv_tasks.tasks import contracts, public_tasks

    if task is not None and task not in public_tasks():
        known = ", ".join(public_tasks())
        raise click.ClickException(f"{task} is not a public task. Public tasks: {known}")
    found = contracts(task)
    click.echo(json.dumps(found[task] if task is not None else found, indent=2))


@api.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8004, show_default=True, type=int, help="Port to listen on.")
def api_serve(host: str, port: int) -> None:
    """Serve Heat's orchestration API v1 at /v1/{tenant_id}/... over the public tasks.

    CONV_TASKS_API_AUTH chooses how callers authenticate: noauth (loopback only), tokens
    (CONV_TASKS_API_TOKENS_FILE) or keystone. TLS belongs to a proxy in front of it.
    """
    from conv_tasks.edge import ApiConfigError
    from conv_tasks.server import serve

    try:
        serve(host, port)
    except ApiConfigError as exc:
        raise click.ClickException(str(exc)) from None


@api.command("token-hash")
def api_token_hash() -> None:
    """Read a token on stdin and print the line for CONV_TASKS_API_TOKENS_FILE's hash."""
    import sys

    from conv_tasks.edge import token_hash

    token = sys.stdin.readline().rstrip("\n")
    if not token:
        raise click.ClickException("Give the token on stdin.")
    click.echo(token_hash(token))
