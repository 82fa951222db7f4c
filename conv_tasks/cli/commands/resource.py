"""`conv-tasks resource show|list|signal|mark-unhealthy`: one resource of a stack.

What `resource show` prints comes from the engine's views, which mask hidden
parameter values before anything leaves a worker; nothing here unmasks them.
"""

from __future__ import annotations

import json

import click

from conv_tasks.cli import render
from conv_tasks.cli.commands.options import nested_depth_option
from conv_tasks.cli.context import Context, pass_ctx

RESOURCE_COLUMNS = ["name", "type", "version", "physical_id", "status", "status_reason"]


def list_resources(ctx: Context, name: str, all_versions: bool, nested_depth: int) -> None:
    """The resources of stack `name` as `stack resources` and `resource list` print them."""
    rows = ctx.client().resources(name, all_versions=all_versions, nested_depth=nested_depth)
    ctx.emit_rows(rows, [*RESOURCE_COLUMNS, "stack_name"] if nested_depth else RESOURCE_COLUMNS)


@click.group()
def resource() -> None:
    """Act on one resource of a stack."""


@resource.command("show")
@click.argument("stack_name")
@click.argument("resource_name")
@render.format_options
@pass_ctx
def resource_show(ctx: Context, stack_name: str, resource_name: str) -> None:
    """Show RESOURCE_NAME of STACK_NAME: properties and attributes (hidden values masked),
    its versions and its latest events."""
    data = ctx.client().resource(stack_name, resource_name)
    fmt, columns = render.chosen(ctx.as_json)
    if fmt != "table" or columns:
        render.emit_fields(data, ctx.as_json)
        return
    summary = {k: v for k, v in data.items() if k not in ("properties", "attributes")}
    for key in ("versions", "events", "requires"):
        summary.pop(key, None)
    render.fields(summary)
    for title in ("properties", "attributes"):
        click.echo(f"\n{title}:")
        render.fields(data.get(title) or {})
    click.echo("\nversions:")
    render.table(data["versions"], ["version", "physical_id", "status", "current", "updated_at"])
    click.echo("\nevents (latest):")
    render.table(data["events"], ["time", "status", "reason"])


@resource.command("list")
@click.argument("stack_name")
@click.option("--all-versions", is_flag=True, help="Include old versions not yet cleaned up.")
@nested_depth_option
@render.format_options
@pass_ctx
def resource_list(ctx: Context, stack_name: str, all_versions: bool, nested_depth: int) -> None:
    """List the resources of STACK_NAME (as `stack resources`)."""
    list_resources(ctx, stack_name, all_versions, nested_depth)


@resource.command("signal")
@click.argument("stack_name")
@click.argument("resource_name")
@click.option("--data", "data_json", default="{}", help="Signal details as a JSON object.")
@pass_ctx
def resource_signal(ctx: Context, stack_name: str, resource_name: str, data_json: str) -> None:
    """Send a signal to RESOURCE_NAME of STACK_NAME."""
    try:
        details = json.loads(data_json)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"--data is not JSON: {exc}") from None
    result = ctx.client().signal(stack_name, resource_name, details)
    render.emit_json(result) if ctx.as_json else click.echo(result.get("message", "signalled"))


@resource.command("mark-unhealthy")
@click.argument("stack_name")
@click.argument("resource_name")
@click.option("--reason", help="Why the resource is unhealthy (kept with its status).")
@click.option("--reset", is_flag=True, help="Clear the mark: CHECK_FAILED becomes CHECK_COMPLETE.")
@pass_ctx
def resource_mark_unhealthy(
    ctx: Context, stack_name: str, resource_name: str, reason: str | None, reset: bool
) -> None:
    """Mark RESOURCE_NAME of STACK_NAME unhealthy (CHECK_FAILED): the next update replaces it."""
    result = ctx.client().mark_unhealthy(stack_name, resource_name, reason, reset=reset)
    if ctx.as_json:
        render.emit_json(result)
        return
    unchanged = "" if result["changed"] else " (unchanged)"
    click.echo(f"{stack_name}/{resource_name}: {result['status']}{unchanged}")
