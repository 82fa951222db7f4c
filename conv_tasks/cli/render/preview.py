"""Printing a preview (`stack preview`, `stack update --dry-run`): one line per resource,
the properties that differ under it, and the summary line."""

from __future__ import annotations

import json
from typing import Any

import click

from conv_tasks.cli.render.output import emit_json

_MARKS = {"create": "+", "update": "~", "replace": "-/+", "delete": "-", "unchanged": "="}


def show_preview(result: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        emit_json({k: v for k, v in result.items() if k != "ok"})
        return
    what = "update" if result["exists"] else "create"
    click.echo(f"Preview of the {what} of stack {result['stack']} (nothing was changed):")
    for entry in result["resources"]:
        mark = _MARKS.get(entry["action"], "?")
        reason = f"  ({entry['reason']})" if entry.get("reason") else ""
        click.echo(f"{mark:>3} {entry['name']}  {entry['type']}  {entry['action']}{reason}")
        for key, change in entry.get("changes", {}).items():
            click.echo(f"      {key}: {_change_text(change)}")
        if entry.get("uncertain"):
            click.echo(f"      note: {entry['uncertain']}")
        if entry.get("reality"):
            click.echo(f"      reality: {_reality_text(entry['reality'])}")
    click.echo(result["summary"])


def _reality_text(reality: dict[str, Any]) -> str:
    """How the real object differs from what the stack last made it (its type's observe)."""
    if "unknown" in reality:
        return f"could not be read ({reality['unknown']})"
    if not reality.get("exists", True):
        return "the object is gone"
    return "differs in " + ", ".join(reality.get("differs", []))


def _change_text(change: dict[str, Any]) -> str:
    """old -> new, or that it changed when the values derive from a hidden one (the engine
    sends neither value then)."""
    if change.get("hidden"):
        return "changed (hidden value)"
    return f"{_text(change['old'])} -> {_text(change['new'])}"


def _text(value: Any) -> str:
    shown = json.dumps(value, sort_keys=True, default=str)
    return shown if len(shown) <= 200 else shown[:197] + "..."
