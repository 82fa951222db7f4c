"""`conv-tasks stack show|list|outputs|events|resources|graph`: what a stack is now, and its
events as they come (`stack events --follow`).

Every value comes from the engine's views, which mask hidden parameter values
before anything leaves a worker; nothing here unmasks or re-derives them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import click

from conv_tasks.cli import render
from conv_tasks.cli.commands.options import nested_depth_option, tag_list
from conv_tasks.cli.commands.resource import list_resources
from conv_tasks.cli.context import Context, pass_ctx
from conv_tasks.cli.failures import CliFailure, Exit
from conv_tasks.limits import MAX_LATEST_EVENTS

if TYPE_CHECKING:
    from conv_tasks.client import Client

EVENT_COLUMNS = ["time", "resource_name", "status", "reason"]


@click.command("show")
@click.argument("name")
@render.format_options
@pass_ctx
def stack_show(ctx: Context, name: str) -> None:
    """Show stack NAME."""
    render.emit_fields(ctx.client().get(name), ctx.as_json)


@click.command("list")
@click.option(
    "--show-nested", is_flag=True, help="Also list nested stacks (made by a parent's resource)."
)
@click.option("--tags", "all_of", metavar="TAG,...", help="Only stacks with all these tags.")
@click.option("--tags-any", "any_of", metavar="TAG,...", help="Only stacks with any of these.")
@click.option("--not-tags", "not_all_of", metavar="TAG,...", help="Skip stacks with all of these.")
@click.option("--not-tags-any", "none_of", metavar="TAG,...", help="Skip stacks with any of these.")
@render.format_options
@pass_ctx
def stack_list(
    ctx: Context,
    show_nested: bool,
    all_of: str | None,
    any_of: str | None,
    not_all_of: str | None,
    none_of: str | None,
) -> None:
    """List the tenant's stacks (nested stacks only with --show-nested), filtered by tags as
    heatclient does."""
    rows = ctx.client().list(
        show_nested=show_nested,
        tags=tag_list(all_of),
        tags_any=tag_list(any_of),
        not_tags=tag_list(not_all_of),
        not_tags_any=tag_list(none_of),
    )
    columns = ["id", "name", "status", "tags", "updated_at"]
    ctx.emit_rows(rows, [*columns, "parent_stack_id"] if show_nested else columns)


@click.command("outputs")
@click.argument("name")
@render.format_options
@pass_ctx
def stack_outputs(ctx: Context, name: str) -> None:
    """Show the outputs of stack NAME."""
    data = ctx.client().outputs(name)
    if ctx.as_json and render.chosen(False) == ("table", ()):
        render.emit_json(data)  # --json alone: the object by output name, as before
    else:
        rows = [{"output": k, **v} for k, v in data.items()]
        ctx.emit_rows(rows, ["output", "value", "description", "error"])


@click.command("resources")
@click.argument("name")
@click.option("--all-versions", is_flag=True, help="Include old versions not yet cleaned up.")
@nested_depth_option
@render.format_options
@pass_ctx
def stack_resources(ctx: Context, name: str, all_versions: bool, nested_depth: int) -> None:
    """List the resources of stack NAME (and of its nested stacks with --nested-depth)."""
    list_resources(ctx, name, all_versions, nested_depth)


@click.command("graph")
@click.argument("name")
@click.option(
    "--format", "fmt", type=click.Choice(["dot", "mermaid"]), default="dot", show_default=True
)
@pass_ctx
def stack_graph(ctx: Context, name: str, fmt: str) -> None:
    """Print the traversal graph of stack NAME, nodes coloured by their live status."""
    data = ctx.client().graph(name)
    if ctx.as_json:
        render.emit_json({k: v for k, v in data.items() if k != "ok"})
    else:
        click.echo(render.to_mermaid(data) if fmt == "mermaid" else render.to_dot(data))


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


def latest_events(
    client: Client,
    stack: str,
    latest: int,
    nested_depth: int,
    resources: Iterable[str],
    statuses: Iterable[str],
) -> tuple[list[dict[str, Any]], int]:
    """The stack's events that match the filters, only the newest `latest` of them (all with
    0); and the id of the newest event read, matching or not, to follow on from. Without a
    filter the engine picks the newest; with one, the newest that match may be older than
    any n the engine could pick, so every event is read."""
    resources, statuses = list(resources), list(statuses)
    filtered = bool(resources or statuses)
    events = client.events(stack, latest=0 if filtered else latest, nested_depth=nested_depth)
    rows = [e for e in events if event_matches(e, resources, statuses)]
    last_id = max((int(e["id"]) for e in events), default=0)
    return (rows[-latest:] if latest else rows), last_id


@click.command("events")
@click.argument("name")
@click.option(
    "--resource",
    "resources",
    multiple=True,
    help="Only this resource's events (`stack` for the stack's own; repeatable).",
)
@click.option(
    "--status",
    "statuses",
    multiple=True,
    help="Only events of this status, whole (CREATE_FAILED) or its end (FAILED); repeatable.",
)
@click.option(
    "--follow",
    is_flag=True,
    help="Print new events as they come, until the "
    "stack's operation ends (JSON lines with -f json).",
)
@click.option(
    "--latest",
    type=click.IntRange(0, MAX_LATEST_EVENTS),
    default=0,
    metavar="N",
    help="Only the newest N events (of those --resource and --status keep); with --follow, "
    "the newest N, then new ones as they come. 0: all.",
)
@nested_depth_option
@render.format_options
@pass_ctx
def stack_events(
    ctx: Context,
    name: str,
    resources: tuple[str, ...],
    statuses: tuple[str, ...],
    follow: bool,
    latest: int,
    nested_depth: int,
) -> None:
    """List the events of stack NAME (and of its nested stacks with --nested-depth)."""
    client = ctx.client()
    if follow and nested_depth:
        raise click.UsageError("--follow shows the stack's own events: leave out --nested-depth.")
    if not follow:
        rows, _ = latest_events(client, name, latest, nested_depth, resources, statuses)
        columns = [*EVENT_COLUMNS[:1], "stack_name", *EVENT_COLUMNS[1:]]
        render.emit_rows(rows, columns if nested_depth else EVENT_COLUMNS, ctx.as_json)
        return
    fmt, _ = render.chosen(ctx.as_json)
    view = render.ProgressView(live=False)

    def shown(event: dict[str, Any]) -> None:
        if not event_matches(event, resources, statuses):
            return
        if fmt == "json":
            click.echo(json.dumps(event))
        else:
            view.event(event)

    try:
        # By id: a name stops naming the stack once its delete completes.
        stack_id = client.get(name, include_deleted=True)["id"]
        seen = 0
        if latest:
            # The newest N first, then everything after the newest event read (shown or not).
            first, seen = latest_events(client, stack_id, latest, 0, resources, statuses)
            for event in first:
                shown(event)
        final = client.wait(stack_id, timeout=float("inf"), on_event=shown, after_event=seen)
    except KeyboardInterrupt:
        raise CliFailure(
            Exit.INTERRUPTED, f"stopped following stack {name}; its operation goes on."
        ) from None
    if fmt != "json":
        click.echo(f"{final['name']}: {final['status']}")
