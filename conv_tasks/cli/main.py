"""Entry point of `conv-tasks`: stack, resource-type, template, resource and db commands."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from celery.exceptions import TimeoutError as CeleryTimeoutError

from conv_tasks.agent.command import agent as agent_command
from conv_tasks.cli import details, listing, output
from conv_tasks.cli.api import api
from conv_tasks.cli.deployment import deployment
from conv_tasks.cli.failures import EXIT_CODES, CliFailure, Exit
from conv_tasks.cli.purge import db_purge
from conv_tasks.cli.wait_condition import wait_condition
from conv_tasks.limits import MAX_NESTING_DEPTH
from conv_tasks.tags import split_tags

if TYPE_CHECKING:
    from conv_tasks.local_files import Collected


class Context:
    def __init__(self, tenant: str, as_json: bool, timeout: float) -> None:
        self.tenant = tenant
        self.as_json = as_json
        self.timeout = timeout

    def emit_rows(self, rows: list[dict[str, Any]], columns: list[str]) -> None:
        """Rows in the command's -f format (JSON with --json), else a table of `columns`."""
        listing.emit_rows(rows, columns, self.as_json)

    def client(self) -> Any:
        from conv_tasks.client import Client

        return Client(tenant=self.tenant, timeout=self.timeout)


pass_ctx = click.make_pass_decorator(Context)


@click.group(epilog=EXIT_CODES)
@click.option(
    "--tenant",
    # click reads the variable (conv_tasks code reads no os.environ outside settings.py).
    envvar="CONV_TASKS_TENANT",
    default="default",
    show_default=True,
    show_envvar=True,
    help="Tenant whose stacks to act on.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.option(
    "--timeout",
    default=60.0,
    show_default=True,
    help="Seconds to wait for the engine to answer a request.",
)
@click.pass_context
def cli(ctx: click.Context, tenant: str, as_json: bool, timeout: float) -> None:
    """conv-tasks: converge declarative stacks with Celery workers."""
    ctx.obj = Context(tenant, as_json, timeout)


cli.add_command(deployment)
cli.add_command(wait_condition)


cli.add_command(agent_command)
cli.add_command(details.output_commands)
cli.add_command(api)


def main() -> None:
    from conv_tasks.cli.failures import run

    run(cli)


# --------------------------------------------------------------------- helpers


def _read_template(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:
        raise click.BadParameter(f"cannot read template {path!r}: {exc.strerror}") from None


def _collected(template_file: str | None, environment_files: tuple[str, ...]) -> Collected:
    """The template, environments and every file they refer to, read from disk; each
    environment checked here first, so a problem names its file."""
    from conv_tasks.local_files import collect
    from conv_tasks.template.environment import parse_environment

    if template_file is not None:
        _read_template(template_file)  # the usual message for a template that cannot be read
    collected = collect(template_file, environment_files)
    for path, text in zip(environment_files, collected.environments, strict=True):
        parse_environment(text, name=path)
    return collected


def _parameters(pairs: tuple[str, ...], json_text: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if json_text:
        try:
            loaded = json.loads(json_text)
        except json.JSONDecodeError as exc:
            raise click.BadParameter(f"--parameters-json is not JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise click.BadParameter("--parameters-json must be a JSON object")
        values.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"-P takes KEY=VALUE, got {pair!r}")
        values[key] = value
    return values


def _tags(text: str | None) -> list[str] | None:
    """--tags a,b as a list; absent stays None (on update: keep or clear as Heat does)."""
    return None if text is None else split_tags(text)


tags_option = click.option(
    "--tags", metavar="TAG,...", help="The stack's tags, comma-separated ('' clears them)."
)


def _started(ctx: Context, result: dict[str, Any], wait: bool, wait_timeout: float) -> None:
    if ctx.as_json and not wait:
        output.emit_json(result)
        return
    from conv_tasks.cli.progress import expected_status, follow, interrupted

    try:
        if not ctx.as_json:
            for warning in result.get("warnings") or ():
                click.echo(f"WARNING: {warning}", err=True)
            click.echo(
                f"{result.get('name', result['stack_id'])}: {result['status']} "
                f"(id {result['stack_id']})"
            )
        if not wait:
            return
        final = follow(ctx.client(), result, timeout=wait_timeout)
    except KeyboardInterrupt:
        raise interrupted(str(result.get("name") or result["stack_id"])) from None
    if ctx.as_json:
        output.emit_json(final)
    if final["status"] != expected_status(result):
        sys.exit(Exit.FAILED)


wait_option = click.option("--wait", is_flag=True, help="Follow the operation until it ends.")
wait_timeout_option = click.option(
    "--wait-timeout",
    default=3600.0,
    show_default=True,
    help="Seconds to follow the operation at most.",
)
param_option = click.option(
    "-P",
    "--parameter",
    "parameters",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter value (repeatable).",
)
param_json_option = click.option("--parameters-json", help="Parameter values as a JSON object.")
environment_option = click.option(
    "-e",
    "--environment",
    "environment_files",
    multiple=True,
    metavar="FILE",
    help="An environment file (repeatable; merged in order, the last wins). Files it and "
    "the template refer to (get_file, provider templates) are sent too.",
)


# ----------------------------------------------------------------------- stack


@cli.group()
def stack() -> None:
    """Create, change and inspect stacks."""


@stack.command("create")
@click.argument("name")
@click.option("-t", "--template", "template_file", required=True, help="HOT template file.")
@environment_option
@param_option
@param_json_option
@click.option("--disable-rollback", is_flag=True, help="Keep a failed stack as it is.")
@click.option("--timeout-mins", type=int, help="Fail the operation after this many minutes.")
@tags_option
@click.option(
    "--idempotency-key",
    help="Sent again with the same key, the create answers with the stack it made. "
    "[default: a new one, printed if no answer comes]",
)
@wait_option
@wait_timeout_option
@pass_ctx
def stack_create(
    ctx: Context,
    name: str,
    template_file: str,
    environment_files: tuple[str, ...],
    parameters: tuple[str, ...],
    parameters_json: str | None,
    disable_rollback: bool,
    timeout_mins: int | None,
    idempotency_key: str | None,
    tags: str | None,
    wait: bool,
    wait_timeout: float,
) -> None:
    """Create stack NAME from a template."""
    key = idempotency_key or uuid.uuid4().hex
    collected = _collected(template_file, environment_files)
    try:
        result = ctx.client().create(
            name,
            collected.template,
            _parameters(parameters, parameters_json),
            disable_rollback=disable_rollback,
            timeout_mins=timeout_mins,
            idempotency_key=key,
            environment=collected.environments,
            files=collected.files,
            tags=_tags(tags),
        )
    except (TimeoutError, CeleryTimeoutError):
        # The request may still run when a worker takes it: a retry with this key is safe.
        raise CliFailure(
            Exit.NO_ANSWER,
            f"no answer to the create within {ctx.timeout:g}s (is a worker running?). It may "
            f"still happen; retry with --idempotency-key {key} to get its stack, not a second one.",
        ) from None
    _started(ctx, result, wait, wait_timeout)


@stack.command("update")
@click.argument("name")
@click.option("-t", "--template", "template_file", help="New HOT template file.")
@environment_option
@param_option
@param_json_option
@click.option(
    "--existing",
    is_flag=True,
    help="Keep the parameters, environment and files the stack already has (patched with "
    "those given).",
)
@click.option("--disable-rollback/--enable-rollback", default=None)
@click.option("--timeout-mins", type=int)
@tags_option
@click.option("--dry-run", is_flag=True, help="Show what the update would do; change nothing.")
@wait_option
@wait_timeout_option
@pass_ctx
def stack_update(
    ctx: Context,
    name: str,
    template_file: str | None,
    environment_files: tuple[str, ...],
    parameters: tuple[str, ...],
    parameters_json: str | None,
    existing: bool,
    disable_rollback: bool | None,
    timeout_mins: int | None,
    tags: str | None,
    dry_run: bool,
    wait: bool,
    wait_timeout: float,
) -> None:
    """Update stack NAME to a new template and/or parameters and environments. With a new
    template and without --existing, the environments given replace the stack's. Without
    --tags, the tags are kept when the template or --existing is, else cleared (Heat)."""
    collected = _collected(template_file, environment_files)
    if dry_run:
        from conv_tasks.cli.preview import show_preview

        preview = ctx.client().preview(
            name,
            collected.template,
            _parameters(parameters, parameters_json),
            existing_parameters=existing,
            environment=collected.environments,
            files=collected.files,
        )
        show_preview(preview, as_json=ctx.as_json)
        return
    result = ctx.client().update(
        name,
        collected.template,
        _parameters(parameters, parameters_json),
        existing_parameters=existing,
        disable_rollback=disable_rollback,
        timeout_mins=timeout_mins,
        environment=collected.environments,
        files=collected.files,
        tags=_tags(tags),
    )
    _started(ctx, result, wait, wait_timeout)


@stack.command("preview")
@click.argument("name")
@click.option("-t", "--template", "template_file", required=True, help="HOT template file.")
@environment_option
@param_option
@param_json_option
@click.option(
    "--existing",
    is_flag=True,
    help="Keep the parameters, environment and files the stack already has (patched with "
    "those given).",
)
@pass_ctx
def stack_preview(
    ctx: Context,
    name: str,
    template_file: str,
    environment_files: tuple[str, ...],
    parameters: tuple[str, ...],
    parameters_json: str | None,
    existing: bool,
) -> None:
    """Show what creating (or updating, if it exists) stack NAME from a template would do to
    each resource; change nothing."""
    from conv_tasks.cli.preview import show_preview

    collected = _collected(template_file, environment_files)
    preview = ctx.client().preview(
        name,
        collected.template,
        _parameters(parameters, parameters_json),
        existing_parameters=existing,
        environment=collected.environments,
        files=collected.files,
    )
    show_preview(preview, as_json=ctx.as_json)


@stack.command("graph")
@click.argument("name")
@click.option(
    "--format", "fmt", type=click.Choice(["dot", "mermaid"]), default="dot", show_default=True
)
@pass_ctx
def stack_graph(ctx: Context, name: str, fmt: str) -> None:
    """Print the traversal graph of stack NAME, nodes coloured by their live status."""
    from conv_tasks.cli.graph import to_dot, to_mermaid

    data = ctx.client().graph(name)
    if ctx.as_json:
        output.emit_json({k: v for k, v in data.items() if k != "ok"})
    else:
        click.echo(to_mermaid(data) if fmt == "mermaid" else to_dot(data))


@stack.command("delete")
@click.argument("name")
@click.option("-y", "--yes", is_flag=True, help="Delete without asking for confirmation.")
@wait_option
@wait_timeout_option
@pass_ctx
def stack_delete(ctx: Context, name: str, yes: bool, wait: bool, wait_timeout: float) -> None:
    """Delete stack NAME and every resource in it (asks first, unless --yes)."""
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError(
                f"not deleting stack {name}: there is no terminal to confirm on; "
                "pass --yes to delete it without asking"
            )
        if not click.confirm(f"Delete stack {name} and every resource in it?"):
            click.echo(f"stack {name} not deleted", err=True)
            sys.exit(1)
    _started(ctx, ctx.client().delete(name), wait, wait_timeout)


@stack.command("rollback")
@click.argument("name")
@wait_option
@wait_timeout_option
@pass_ctx
def stack_rollback(ctx: Context, name: str, wait: bool, wait_timeout: float) -> None:
    """Roll stack NAME back to the last template that completed."""
    _started(ctx, ctx.client().rollback(name), wait, wait_timeout)


@stack.command("cancel")
@click.argument("name")
@click.option("--no-rollback", is_flag=True, help="Stop the update where it stands.")
@wait_option
@wait_timeout_option
@pass_ctx
def stack_cancel(
    ctx: Context, name: str, no_rollback: bool, wait: bool, wait_timeout: float
) -> None:
    """Cancel the update in progress on stack NAME."""
    _started(ctx, ctx.client().cancel(name, rollback=not no_rollback), wait, wait_timeout)


@stack.command("check")
@click.argument("name")
@wait_option
@wait_timeout_option
@pass_ctx
def stack_check(ctx: Context, name: str, wait: bool, wait_timeout: float) -> None:
    """Check every resource of stack NAME: it ends CHECK_COMPLETE, or CHECK_FAILED naming the
    resources that are not healthy (exit 1 with --wait). Refused while an operation runs."""
    _started(ctx, ctx.client().check(name), wait, wait_timeout)


NESTED_DEPTH = click.option(
    "--nested-depth",
    type=click.IntRange(0, MAX_NESTING_DEPTH),
    default=0,
    show_default=True,
    help="Also include nested stacks this many levels down.",
)


@stack.command("show")
@click.argument("name")
@listing.format_options
@pass_ctx
def stack_show(ctx: Context, name: str) -> None:
    """Show stack NAME."""
    listing.emit_fields(ctx.client().get(name), ctx.as_json)


@stack.command("list")
@click.option(
    "--show-nested", is_flag=True, help="Also list nested stacks (made by a parent's resource)."
)
@click.option("--tags", "all_of", metavar="TAG,...", help="Only stacks with all these tags.")
@click.option("--tags-any", "any_of", metavar="TAG,...", help="Only stacks with any of these.")
@click.option("--not-tags", "not_all_of", metavar="TAG,...", help="Skip stacks with all of these.")
@click.option("--not-tags-any", "none_of", metavar="TAG,...", help="Skip stacks with any of these.")
@listing.format_options
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
        tags=_tags(all_of),
        tags_any=_tags(any_of),
        not_tags=_tags(not_all_of),
        not_tags_any=_tags(none_of),
    )
    columns = ["id", "name", "status", "tags", "updated_at"]
    ctx.emit_rows(rows, [*columns, "parent_stack_id"] if show_nested else columns)


@stack.command("outputs")
@click.argument("name")
@listing.format_options
@pass_ctx
def stack_outputs(ctx: Context, name: str) -> None:
    """Show the outputs of stack NAME."""
    data = ctx.client().outputs(name)
    if ctx.as_json and listing.chosen(False) == ("table", ()):
        output.emit_json(data)  # --json alone: the object by output name, as before
    else:
        rows = [{"output": k, **v} for k, v in data.items()]
        ctx.emit_rows(rows, ["output", "value", "description", "error"])


@stack.command("events")
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
@NESTED_DEPTH
@listing.format_options
@pass_ctx
def stack_events(
    ctx: Context,
    name: str,
    resources: tuple[str, ...],
    statuses: tuple[str, ...],
    follow: bool,
    nested_depth: int,
) -> None:
    """List the events of stack NAME (and of its nested stacks with --nested-depth)."""
    details.stack_events(ctx, name, resources, statuses, follow, nested_depth)


RESOURCE_COLUMNS = ["name", "type", "version", "physical_id", "status", "status_reason"]


def _list_resources(ctx: Context, name: str, all_versions: bool, nested_depth: int) -> None:
    rows = ctx.client().resources(name, all_versions=all_versions, nested_depth=nested_depth)
    ctx.emit_rows(rows, [*RESOURCE_COLUMNS, "stack_name"] if nested_depth else RESOURCE_COLUMNS)


@stack.command("resources")
@click.argument("name")
@click.option("--all-versions", is_flag=True, help="Include old versions not yet cleaned up.")
@NESTED_DEPTH
@listing.format_options
@pass_ctx
def stack_resources(ctx: Context, name: str, all_versions: bool, nested_depth: int) -> None:
    """List the resources of stack NAME (and of its nested stacks with --nested-depth)."""
    _list_resources(ctx, name, all_versions, nested_depth)


# ------------------------------------------------------- resource types, templates


@cli.group("resource-type")
def resource_type() -> None:
    """Inspect the resource types this installation knows."""


@resource_type.command("list")
@listing.format_options
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

    output.emit_json(default_registry().show(type_name))


@cli.group()
def template() -> None:
    """Work with templates."""


template.add_command(details.template_show)


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
    from conv_tasks.cli.validate import show_validation

    collected = _collected(path, environment_files)
    show_validation(
        path,
        collected.template or "",
        _parameters(parameters, parameters_json),
        as_json=ctx.as_json or local_json,
        environment=collected.environments,
        files=collected.files,
    )


# ------------------------------------------------------------ resource signal


@cli.group()
def resource() -> None:
    """Act on one resource of a stack."""


resource.add_command(details.resource_show)


@resource.command("list")
@click.argument("stack_name")
@click.option("--all-versions", is_flag=True, help="Include old versions not yet cleaned up.")
@NESTED_DEPTH
@listing.format_options
@pass_ctx
def resource_list(ctx: Context, stack_name: str, all_versions: bool, nested_depth: int) -> None:
    """List the resources of STACK_NAME (as `stack resources`)."""
    _list_resources(ctx, stack_name, all_versions, nested_depth)


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
    output.emit_json(result) if ctx.as_json else click.echo(result.get("message", "signalled"))


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
        output.emit_json(result)
        return
    unchanged = "" if result["changed"] else " (unchanged)"
    click.echo(f"{stack_name}/{resource_name}: {result['status']}{unchanged}")


# -------------------------------------------------------- db, worker, beat


@cli.group()
def db() -> None:
    """Database administration."""


db.add_command(db_purge)


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@click.option("--create-database", is_flag=True, help="Create the database first if missing.")
def db_upgrade(revision: str, create_database: bool) -> None:
    """Bring the database schema up to date."""
    from conv_tasks.db.migrate import ensure_database, upgrade

    if create_database and ensure_database():
        click.echo("created the database")
    upgrade(revision=revision)
    click.echo(f"database schema at {revision}")


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def worker(ctx: click.Context) -> None:
    """Run a Celery worker (extra arguments go to `celery worker`)."""
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "conv_tasks.tasks.app",
            "worker",
            "--loglevel",
            "INFO",
            *ctx.args,
        ],
    )


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def beat(ctx: click.Context) -> None:
    """Run celery beat with the watchdog and template collector (extra arguments go to it)."""
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "conv_tasks.tasks.app",
            "beat",
            "--loglevel",
            "INFO",
            *ctx.args,
        ],
    )
