"""`conv-tasks wait-condition signal`: what a host runs to signal a wait condition handle.

A handle's `curl_cli` attribute is this command's prefix with the handle's
id and token, so a host adds `--data-binary '{"status": "SUCCESS"}'` as it
would to Heat's curl command, or the single fields as options. The token is
never echoed back.
"""

from __future__ import annotations

import json
from typing import Any

import click

from conv_tasks.cli import render
from conv_tasks.cli.context import Context, pass_ctx


def _json(option: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"{option} is not JSON: {exc}") from None


@click.group("wait-condition")
def wait_condition() -> None:
    """Signal wait condition handles (OS::Heat::WaitConditionHandle)."""


@wait_condition.command("signal")
@click.argument("handle")
@click.option("--token", required=True, help="The handle's token (its `token` attribute).")
@click.option(
    "--data-binary",
    "details_json",
    default=None,
    help='The signal as a JSON object: {"status", "reason", "data", "id"}, each optional.',
)
@click.option("--status", type=click.Choice(["SUCCESS", "FAILURE"]), help="Default SUCCESS.")
@click.option("--reason", help='Default "Signal N received".')
@click.option("--data", "data_json", help="The signal's data, as JSON.")
@click.option("--id", "signal_id", help="The signal's id (default: its number).")
@pass_ctx
def wait_condition_signal(
    ctx: Context,
    handle: str,
    token: str,
    details_json: str | None,
    status: str | None,
    reason: str | None,
    data_json: str | None,
    signal_id: str | None,
) -> None:
    """Signal wait condition HANDLE (its `endpoint` attribute) with its token."""
    details = _json("--data-binary", details_json) if details_json is not None else {}
    if not isinstance(details, dict):
        raise click.BadParameter("--data-binary must be a JSON object")
    chosen = {"status": status, "reason": reason, "id": signal_id}
    details.update({key: value for key, value in chosen.items() if value is not None})
    if data_json is not None:
        details["data"] = _json("--data", data_json)
    result = ctx.client().signal_wait_condition(handle, token, details)
    render.emit_json(result) if ctx.as_json else click.echo(result.get("message", "signalled"))
