"""`conv-tasks resource-type list|show`: the resource types this installation knows.

These commands read the registry in the CLI's own process (the types installed
here); they send nothing to the engine.
"""

from __future__ import annotations

import click

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
@pass_ctx
def resource_type_show(ctx: Context, type_name: str) -> None:
    """Show the properties, attributes and support status of TYPE_NAME."""
    from conv_tasks.resources import default_registry

    render.emit_json(default_registry().show(type_name))
