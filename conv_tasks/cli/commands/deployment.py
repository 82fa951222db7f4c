"""`conv-tasks deployment ...`: a stack owner's view of its software deployments."""

from __future__ import annotations

import click

from conv_tasks.cli import render
from conv_tasks.cli.context import Context, pass_ctx


@click.group()
def deployment() -> None:
    """Inspect software deployments and get credentials for their servers' agents."""


@deployment.command("list")
@click.argument("stack_name")
@pass_ctx
def deployment_list(ctx: Context, stack_name: str) -> None:
    """List the software deployments of STACK_NAME."""
    rows = ctx.client().deployments(stack_name)
    ctx.emit_rows(rows, ["name", "server", "status", "status_reason", "updated_time"])


@deployment.command("show")
@click.argument("stack_name")
@click.argument("name")
@pass_ctx
def deployment_show(ctx: Context, stack_name: str, name: str) -> None:
    """Show deployment NAME of STACK_NAME: status, events, outputs, ends of stdout/stderr."""
    data = ctx.client().deployment(stack_name, name)
    if ctx.as_json:
        render.emit_json(data)
        return
    events = data.pop("events", [])
    stdout, stderr = data.pop("deploy_stdout", ""), data.pop("deploy_stderr", "")
    render.fields(data)
    click.echo("\nevents:")
    render.table(events, ["time", "status", "reason"])
    for title, text in (("stdout", stdout), ("stderr", stderr)):
        if text:
            click.echo(f"\n{title} (its end):\n{text.rstrip()}")


@deployment.command("credential")
@click.argument("stack_name")
@click.argument("server")
@click.option(
    "--rotate", is_flag=True, help="Issue a new credential even if one was issued (the old stops)."
)
@pass_ctx
def deployment_credential(ctx: Context, stack_name: str, server: str, rotate: bool) -> None:
    """Issue the credential with which the agent on SERVER reads its deployments of STACK_NAME.

    Shown once: conv_tasks keeps only its hash. Give it to the agent (a file or an environment
    variable); see docs/features/software-deployments.md.
    """
    result = ctx.client().deployment_credential(stack_name, server, rotate=rotate)
    if ctx.as_json:
        render.emit_json(result)
    else:
        click.echo(result["credential"])
