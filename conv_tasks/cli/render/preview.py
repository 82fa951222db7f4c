"""Printing a preview (`stack preview`, `stack update --dry-run`): one line per resource,
the properties that differ under it, the resources of its nested stack that change (or are
uncertain) indented under it, to any depth, and the summary line."""

from __future__ import annotations

import json
from typing import Any

import click

from conv_tasks.cli.render.output import emit_json

# Each level of nesting is indented this much more.
_STEP = "    "
_MARKS = {"create": "+", "update": "~", "replace": "-/+", "delete": "-", "unchanged": "="}


def show_preview(result: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        emit_json({k: v for k, v in result.items() if k != "ok"})
        return
    what = "update" if result["exists"] else "create"
    click.echo(f"Preview of the {what} of stack {result['stack']} (nothing was changed):")
    for entry in result["resources"]:
        _show_entry(entry, "")
    click.echo(result["summary"])


def _show_entry(entry: dict[str, Any], indent: str) -> None:
    """One resource's lines; the resources of its nested stack under it, indented a step
    more (to any depth)."""
    mark = _MARKS.get(entry["action"], "?")
    reason = f"  ({entry['reason']})" if entry.get("reason") else ""
    click.echo(f"{indent}{mark:>3} {entry['name']}  {entry['type']}  {entry['action']}{reason}")
    for key, change in entry.get("changes", {}).items():
        click.echo(f"{indent}      {key}: {_change_text(change)}")
    if entry.get("uncertain"):
        click.echo(f"{indent}      note: {entry['uncertain']}")
    if entry.get("reality"):
        click.echo(f"{indent}      reality: {_reality_text(entry['reality'])}")
    nested = list(entry.get("nested") or ())
    # Inside a nested stack only what changes, or may, gets a line: a group of hundreds of
    # members would otherwise bury the one that changes.
    shown = [inner for inner in nested if inner["action"] != "unchanged" or inner.get("uncertain")]
    if not shown:
        return
    stack = (entry.get("nested_stack") or {}).get("name") or "its nested stack"
    click.echo(f"{indent}      in {stack}:")
    for inner in shown:
        _show_entry(inner, indent + _STEP)
    if len(nested) > len(shown):
        click.echo(f"{indent}{_STEP}      ({len(nested) - len(shown)} unchanged)")


def _reality_text(reality: dict[str, Any]) -> str:
    """How the real object differs from what the stack last made it (its type's observe)."""
    if "unknown" in reality:
        again = "; a passing fault: preview again" if reality.get("retryable") else ""
        return f"could not be read ({reality['unknown']}{again})"
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
