"""`conv-tasks template show|validate`: a stack's template, and checking a template file.

`template validate` runs the engine's validate_template in the CLI's own process,
with the resource types and custom constraint checkers installed there (and its
CONV_TASKS_STRICT_CONSTRAINTS); `template show` asks the engine, whose
views mask hidden parameters' defaults.
"""

from __future__ import annotations

import sys

import click
import yaml

from conv_tasks.cli import render
from conv_tasks.cli.commands.options import (
    environment_option,
    param_json_option,
    param_option,
    parameter_values,
    read_template_files,
)
from conv_tasks.cli.context import Context, pass_ctx


@click.group()
def template() -> None:
    """Work with templates."""


@template.command("show")
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
        render.emit_json(document)
    else:
        click.echo(yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip())


@template.command("validate")
@click.argument("path")
@environment_option
@param_option
@param_json_option
@click.option("--json", "local_json", is_flag=True, help="Print the result as JSON on stdout.")
@pass_ctx
def template_validate(
    ctx: Context,
    path: str,
    environment_files: tuple[str, ...],
    parameters: tuple[str, ...],
    parameters_json: str | None,
    local_json: bool,
) -> None:
    """Check a template without parameter values (values given are checked), with its
    environments and the files they refer to; print its resources in dependency order, or
    every problem with its line and column. Exit 1 if any."""
    from conv_tasks.constraints import installed_checkers
    from conv_tasks.engine import validate_template
    from conv_tasks.settings import get_settings

    collected = read_template_files(path, environment_files)
    result = validate_template(
        collected.template or "",
        parameter_values(parameters, parameters_json),
        filename=path,
        environment=collected.environments,
        files=collected.files,
        constraints=installed_checkers().strictly(get_settings().strict_constraints),
    )
    render.show_validation(path, result, as_json=ctx.as_json or local_json)
    if not result["valid"]:
        sys.exit(1)
