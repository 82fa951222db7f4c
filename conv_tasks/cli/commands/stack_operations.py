"""`conv-tasks stack create|apply|update|preview|delete|rollback|cancel|check`: the operations
on a stack, each answered with the stack's status and, with --wait, followed until it ends."""

from __future__ import annotations

import dataclasses
import sys
import uuid
from collections.abc import Callable
from typing import Any

import click
from celery.exceptions import TimeoutError as CeleryTimeoutError

from conv_tasks.cli import render
from conv_tasks.cli.commands.request_options import read_request, request_options
from conv_tasks.cli.context import Context, pass_ctx
from conv_tasks.cli.failures import CliFailure, Exit
from conv_tasks.requests import (
    ApplyRequest,
    DeleteRequest,
    NewStackRequest,
    PreviewRequest,
    RollbackRequest,
    UpdateRequest,
)

_wait_option = click.option("--wait", is_flag=True, help="Follow the operation until it ends.")
_wait_timeout_option = click.option(
    "--wait-timeout",
    default=3600.0,
    show_default=True,
    help="Seconds to follow the operation at most.",
)


def wait_options(command: Any) -> Any:
    """--wait and --wait-timeout, which every operation that starts a traversal takes."""
    return _wait_option(_wait_timeout_option(command))


def _started(ctx: Context, result: dict[str, Any], wait: bool, wait_timeout: float) -> None:
    if ctx.as_json and not wait:
        render.emit_json(result)
        return
    try:
        if not ctx.as_json:
            for warning in result.get("warnings") or ():
                click.echo(f"WARNING: {warning}", err=True)
            # An apply says what it did first: created, updated or unchanged.
            did = f"{result['result']}, " if result.get("result") else ""
            click.echo(
                f"{result.get('name', result['stack_id'])}: {did}{result['status']} "
                f"(id {result['stack_id']})"
            )
        if not wait:
            return
        final = render.follow(ctx.client(), result, timeout=wait_timeout)
    except KeyboardInterrupt:
        raise render.interrupted(str(result.get("name") or result["stack_id"])) from None
    if ctx.as_json:
        render.emit_json(final)
    if final["status"] != render.expected_status(result):
        sys.exit(Exit.FAILED)


# create, apply, update and preview take the options their requests declare
# (conv_tasks.requests, through request_options).
@click.command("create")
@click.argument("name")
@request_options(NewStackRequest)
@wait_options
@pass_ctx
def stack_create(ctx: Context, name: str, wait: bool, wait_timeout: float, **given: Any) -> None:
    """Create stack NAME from a template."""
    request = read_request(NewStackRequest, name, given)
    # The key is made here, not by the client, so that a create with no answer can say it.
    key = request.idempotency_key or uuid.uuid4().hex
    try:
        result = ctx.client().send(dataclasses.replace(request, idempotency_key=key))
    except (TimeoutError, CeleryTimeoutError):
        # The request may still run when a worker takes it: a retry with this key is safe.
        raise CliFailure(
            Exit.NO_ANSWER,
            f"no answer to the create within {ctx.timeout:g}s (is a worker running?). It may "
            f"still happen; retry with --idempotency-key {key} to get its stack, not a second one.",
        ) from None
    _started(ctx, result, wait, wait_timeout)


@click.command("apply")
@click.argument("name")
@request_options(ApplyRequest)
@wait_options
@pass_ctx
def stack_apply(ctx: Context, name: str, wait: bool, wait_timeout: float, **given: Any) -> None:
    """Create stack NAME from a template, update it to the template, or leave it as it is if
    it is COMPLETE on exactly this template, parameters, environments, files and tags (then
    no operation starts, and --wait has nothing to follow). Safe to run again."""
    request = read_request(ApplyRequest, name, given)
    try:
        result = ctx.client().send(request)
    except (TimeoutError, CeleryTimeoutError):
        raise CliFailure(
            Exit.NO_ANSWER,
            f"no answer to the apply within {ctx.timeout:g}s (is a worker running?). It may "
            "still happen; running the same apply again is safe.",
        ) from None
    _started(ctx, result, wait and result.get("result") != "unchanged", wait_timeout)


def _show_preview(ctx: Context, request: PreviewRequest) -> None:
    render.show_preview(ctx.client().send(request), as_json=ctx.as_json)


@click.command("update")
@click.argument("name")
@request_options(UpdateRequest)
@click.option("--dry-run", is_flag=True, help="Show what the update would do; change nothing.")
@wait_options
@pass_ctx
def stack_update(
    ctx: Context, name: str, dry_run: bool, wait: bool, wait_timeout: float, **given: Any
) -> None:
    """Update stack NAME to a new template and/or parameters and environments. With a new
    template and without --existing, the environments given replace the stack's. Without
    --tags, the tags are kept when the template or --existing is, else cleared (Heat)."""
    if dry_run:
        _show_preview(ctx, read_request(PreviewRequest, name, given))
        return
    _started(ctx, ctx.client().send(read_request(UpdateRequest, name, given)), wait, wait_timeout)


@click.command("preview")
@click.argument("name")
@request_options(PreviewRequest, template_required=True)
@pass_ctx
def stack_preview(ctx: Context, name: str, **given: Any) -> None:
    """Show what creating (or updating, if it exists) stack NAME from a template would do to
    each resource; change nothing."""
    _show_preview(ctx, read_request(PreviewRequest, name, given))


@click.command("delete")
@click.argument("name")
@click.option("-y", "--yes", is_flag=True, help="Delete without asking for confirmation.")
@request_options(DeleteRequest)
@wait_options
@pass_ctx
def stack_delete(
    ctx: Context, name: str, yes: bool, wait: bool, wait_timeout: float, **given: Any
) -> None:
    """Delete stack NAME and every resource in it but those --retain names (asks first,
    unless --yes)."""
    request = read_request(DeleteRequest, name, given)
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError(
                f"not deleting stack {name}: there is no terminal to confirm on; "
                "pass --yes to delete it without asking"
            )
        kept = f" but {', '.join(request.retain)}" if request.retain else ""
        if not click.confirm(f"Delete stack {name} and every resource in it{kept}?"):
            click.echo(f"stack {name} not deleted", err=True)
            sys.exit(1)
    _started(ctx, ctx.client().send(request), wait, wait_timeout)


@click.command("rollback")
@click.argument("name")
@request_options(RollbackRequest)
@wait_options
@pass_ctx
def stack_rollback(ctx: Context, name: str, wait: bool, wait_timeout: float, **given: Any) -> None:
    """Roll stack NAME back to the last template that completed."""
    _started(ctx, ctx.client().send(read_request(RollbackRequest, name, given)), wait, wait_timeout)


@click.command("cancel")
@click.argument("name")
@click.option("--no-rollback", is_flag=True, help="Stop the update where it stands.")
@wait_options
@pass_ctx
def stack_cancel(
    ctx: Context, name: str, no_rollback: bool, wait: bool, wait_timeout: float
) -> None:
    """Cancel the update in progress on stack NAME."""
    _started(ctx, ctx.client().cancel(name, rollback=not no_rollback), wait, wait_timeout)


def _walk(name: str, start: Callable[[Any, str], dict[str, Any]], doc: str) -> click.Command:
    """The command that starts a walk over every resource of stack NAME (check, suspend,
    resume): `start(client, name)` sends it."""

    @click.command(name, help=doc)
    @click.argument("name")
    @wait_options
    @pass_ctx
    def walk(ctx: Context, name: str, wait: bool, wait_timeout: float) -> None:
        _started(ctx, start(ctx.client(), name), wait, wait_timeout)

    return walk


stack_check = _walk(
    "check",
    lambda client, name: client.check(name),
    """Check every resource of stack NAME: it ends CHECK_COMPLETE, or CHECK_FAILED naming the
    resources that are not healthy (exit 1 with --wait). Refused while an operation runs.""",
)
stack_suspend = _walk(
    "suspend",
    lambda client, name: client.suspend(name),
    """Suspend every resource of stack NAME, dependants first: it ends SUSPEND_COMPLETE, or
    SUSPEND_FAILED (exit 1 with --wait). Refused while an operation runs, once suspended,
    or after a failed operation. A suspended stack is resumed or deleted, not updated.""",
)
stack_resume = _walk(
    "resume",
    lambda client, name: client.resume(name),
    """Resume every resource of the suspended stack NAME, dependencies first: it ends
    RESUME_COMPLETE, or RESUME_FAILED (exit 1 with --wait).""",
)
