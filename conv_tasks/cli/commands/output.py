"""`conv-tasks output show`: one output of a stack.

The value comes from the engine's views, which mask a value taken from a hidden
parameter before it leaves a worker; nothing here unmasks it.
"""

from __future__ import annotations

import click

from conv_tasks.cli import render
from conv_tasks.cli.context import Context, pass_ctx


@click.group("output")
def output() -> None:
    """Inspect a stack's outputs."""


@output.command("show")
@click.argument("stack_name")
@click.argument("output_name")
@render.format_options
@pass_ctx
def output_show(ctx: Context, stack_name: str, output_name: str) -> None:
    """Show OUTPUT_NAME of STACK_NAME (a value from a hidden parameter is masked)."""
    render.emit_fields(ctx.client().output(stack_name, output_name), ctx.as_json)
