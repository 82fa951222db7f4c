"""`conv-tasks resource-type list|show`: the resource types this installation knows.

These commands read the registry in the CLI's own process (the types installed
here); they send nothing to the engine. `show` prints a type for people by default, its
whole description with -f json|yaml, or with --template-type hot a template that uses it.
"""

from __future__ import annotations

import click
import yaml

from conv_tasks.cli import render
from conv_tasks.cli.context import Context, pass_ctx


@click.group("resource-type")
def resource_type() -> None:
    """Inspect the resource types this installation knows."""


@resource_type.command("list")
@render.format_options
@pass_ctx
def resource_type_list(ctx: Context) -> None:
    """List resource types (HIDDEN ones are left out)."""
    from conv_tasks.resources import default_registry

    rows = [
        {"type": cls.type_name, "status": cls.support_status.status}
        for cls in default_registry().list()
    ]
    ctx.emit_rows(rows, ["type", "status"])


@resource_type.command("show")
@click.argument("type_name")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["json", "yaml"]),
    default=None,
    help="Print the description (or the template) as JSON or YAML "
    "(default: for people; json with --json; a template: yaml).",
)
@click.option(
    "--template-type",
    type=click.Choice(["hot"], case_sensitive=False),
    help="Print a HOT template that uses the type instead: its properties as parameters, "
    "its attributes as outputs (Heat's `resource type show --template-type hot`).",
)
@pass_ctx
def resource_type_show(
    ctx: Context, type_name: str, fmt: str | None, template_type: str | None
) -> None:
    """Show the properties, attributes and support status of TYPE_NAME."""
    from conv_tasks.resources import default_registry, hot_skeleton

    registry = default_registry()
    data = registry.show(type_name)  # refuses an unknown or a HIDDEN type
    fmt = fmt or ("json" if ctx.as_json else None)
    if template_type is not None:
        skeleton = hot_skeleton(registry.get(type_name))
        if fmt == "json":
            render.emit_json(skeleton)
        else:
            click.echo(yaml.safe_dump(skeleton, sort_keys=False, default_flow_style=False).rstrip())
    elif fmt == "json":
        render.emit_json(data)
    elif fmt == "yaml":
        click.echo(yaml.safe_dump(data, sort_keys=False, default_flow_style=False).rstrip())
    else:
        render.show_resource_type(data)
