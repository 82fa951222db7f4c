"""`resource show`, `output show`, `template show` and `stack events` with filters and --follow.

Every value comes from the engine's views, which mask hidden parameter values
before anything leaves a worker; nothing here unmasks or re-derives them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import click
import yaml

from conv_tasks.cli import listing, output
from conv_tasks.cli.failures import CliFailure, Exit

if TYPE_CHECKING:
    from conv_tasks.cli.main import Context

EVENT_COLUMNS = ["time", "resource_name", "status", "reason"]
# The group's callback puts the Context in ctx.obj (conv_tasks.cli.main imports this module).
pass_ctx = click.pass_obj


# ----------------------------------------------------------------- resource show


@click.command("show")
@click.argument("stack_name")
@click.argument("resource_name")
@listing.format_options
@pass_ctx
def resource_show(ctx: Context, stack_name: str, resource_name: str) -> None:
    """Show RESOURCE_NAME of STACK_NAME: properties and attributes (hidden values masked),
    its versions and its latest events."""
    data = ctx.client().resource(stack_name, resource_name)
    fmt, columns = listing.chosen(ctx.as_json)
    if fmt != "table" or columns:
        listing.emit_fields(data, ctx.as_json)
        return
    summary = {k: v for k, v in data.items() if k not in ("properties", "attributes")}
    for key in ("versions", "events", "requires"):
        summary.pop(key, None)
    output.fields(summary)
    for title in ("properties", "attributes"):
        click.echo(f"\n{title}:")
        output.fields(data.get(title) or {})
    click.echo("\nversions:")
    output.table(data["versions"], ["version", "physical_id", "status", "current", "updated_at"])
    click.echo("\nevents (latest):")
    output.table(data["events"], ["time", "status", "reason"])


# ------------------------------------------------------------------- output show


@click.group("output")
def output_commands() -> None:
    """Inspect a stack's outputs."""


@output_commands.command("show")
@click.argument("stack_name")
@click.argument("output_name")
@listing.format_options
@pass_ctx
def output_show(ctx: Context, stack_name: str, output_name: str) -> None:
    """Show OUTPUT_NAME of STACK_NAME (a value from a hidden parameter is masked)."""
    listing.emit_fields(ctx.client().output(stack_name, output_name), ctx.as_json)


# ----------------------------------------------------------------- template show


@click.command("show")
@click.argument("stack_name")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["yaml", "json"]),
    default=None,
    help="Output format (default: yaml; json with --json).",
)
@click.option(
    "--environment",
    "show_environment",
    is_flag=True,
    help="Print the stack's merged environment instead (hidden values masked).",
)
@pass_ctx
def template_show(ctx: Context, stack_name: str, fmt: str | None, show_environment: bool) -> None:
    """Print the current template of STACK_NAME (hidden parameters' defaults masked), or
    with --environment the environment merged from those it was given."""
    client = ctx.client()
    document = client.environment(stack_name) if show_environment else client.template(stack_name)
    if (fmt or ("json" if ctx.as_json else "yaml")) == "json":
        output.emit_json(document)
    else:
        click.echo(yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip())


# ------------------------------------------------------------------- stack events


def event_matches(
    event: Mapping[str, Any], resources: Iterable[str], statuses: Iterable[str]
) -> bool:
    """`--resource` names a resource (or `stack` for the stack's own events); `--status`
    takes a whole status (CREATE_FAILED) or its end (FAILED, IN_PROGRESS). Either may be
    repeated; an event must match one of each given."""
    resources, statuses = list(resources), [s.upper() for s in statuses]
    if resources and (event.get("resource_name") or "stack") not in resources:
        return False
    status = str(event.get("status") or "")
    return not statuses or any(status == s or status.endswith(f"_{s}") for s in statuses)


def stack_events(
    ctx: Context,
    name: str,
    resources: tuple[str, ...],
    statuses: tuple[str, ...],
    follow: bool,
    nested_depth: int = 0,
) -> None:
    client = ctx.client()
    if follow and nested_depth:
        raise click.UsageError("--follow shows the stack's own events: leave out --nested-depth.")
    if not follow:
        events = client.events(name, nested_depth=nested_depth)
        rows = [e for e in events if event_matches(e, resources, statuses)]
        columns = [*EVENT_COLUMNS[:1], "stack_name", *EVENT_COLUMNS[1:]]
        listing.emit_rows(rows, columns if nested_depth else EVENT_COLUMNS, ctx.as_json)
        return
    fmt, _ = listing.chosen(ctx.as_json)
    from conv_tasks.cli.progress import ProgressView

    view = ProgressView(live=False)

    def shown(event: dict[str, Any]) -> None:
        if not event_matches(event, resources, statuses):
            return
        if fmt == "json":
            click.echo(json.dumps(event, sort_keys=True))
        else:
            view.event(event)

    try:
        # By id: a name stops naming the stack once its delete completes.
        stack_id = client.get(name, include_deleted=True)["id"]
        final = client.wait(stack_id, timeout=float("inf"), on_event=shown)
    except KeyboardInterrupt:
        raise CliFailure(
            Exit.INTERRUPTED, f"stopped following stack {name}; its operation goes on."
        ) from None
    if fmt != "json":
        click.echo(f"{final['name']}: {final['status']}")
