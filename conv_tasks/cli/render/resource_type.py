"""`conv-tasks resource-type show TYPE` for people: the type's support status and summary,
then each property (type, whether it is required or its default, whether a change is made
in place or replaces the resource, its constraints) and each attribute, every description
under its name. `-f json|yaml` print the same description whole, for scripts.

It prints the description Registry.show made; it never looks a type up itself.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Mapping
from typing import Any

import click

_INDENT = "  "


def show_resource_type(data: Mapping[str, Any]) -> None:
    click.echo(f"{data['resource_type']}  {_support(data['support_status'])}")
    _say(data.get("description") or "", "")
    properties = data.get("properties")
    if properties is None:
        click.echo("\nProperties: any (the type checks its own)")
    else:
        click.echo(f"\nProperties ({len(properties)}):" if properties else "\nProperties: none")
        _properties(properties, _INDENT)
    attributes = data.get("attributes") or {}
    click.echo(f"\nAttributes ({len(attributes)}):" if attributes else "\nAttributes: none")
    for name, attribute in attributes.items():
        notes = [attribute["type"], *_status_note(attribute["support_status"])]
        _say(f"{name}: {', '.join(notes)}", _INDENT, _INDENT * 4)
        _say(attribute.get("description") or "", _INDENT * 3)


def _properties(properties: Mapping[str, Any], indent: str, *, top: bool = True) -> None:
    """Each property; a map's keys (top False) change as the property they are in does."""
    for name, prop in properties.items():
        _say(f"{name}: {', '.join(_notes(prop, top))}", indent, indent + _INDENT * 3)
        _say(prop.get("description") or "", indent + _INDENT * 2)
        _sub_schema(prop, indent + _INDENT * 2)


def _sub_schema(prop: Mapping[str, Any], indent: str) -> None:
    inner = prop.get("schema")
    if not isinstance(inner, Mapping):
        return
    if prop["type"] == "list":  # the schema of every item
        click.echo(f"{indent}each item: {inner['type']}")
        _sub_schema(inner, indent)
    elif inner:
        click.echo(f"{indent}keys:")
        _properties(inner, indent + _INDENT, top=False)


def _notes(prop: Mapping[str, Any], top: bool) -> list[str]:
    notes = [prop["type"]]
    if prop.get("required"):
        notes.append("required")
    elif prop.get("default") is not None:
        notes.append(f"default {json.dumps(prop['default'])}")
    if not top:
        pass
    elif prop.get("immutable"):
        notes.append("immutable (a change replaces the resource)")
    elif prop.get("update_allowed"):
        notes.append("updated in place")
    else:
        notes.append("a change replaces the resource")
    notes += [_constraint(c) for c in prop.get("constraints") or ()]
    notes += _status_note(prop["support_status"])
    return notes


def _constraint(constraint: Mapping[str, Any]) -> str:
    kind, args = constraint["kind"], constraint["args"]
    if kind in ("range", "length"):
        low, high = args
        what = "length" if kind == "length" else "value"
        if low is not None and high is not None:
            shown = f"{what} {low} to {high}"
        else:
            shown = f"{what} at least {low}" if low is not None else f"{what} at most {high}"
    elif kind == "allowed_values":
        shown = "one of " + ", ".join(json.dumps(v) for v in args)
    else:
        shown = f"matching {json.dumps(args)}"
    return f"{shown} ({constraint['description']})" if constraint.get("description") else shown


def _support(status: Mapping[str, Any]) -> str:
    since = f" since {status['version']}" if status.get("version") else ""
    message = f": {status['message']}" if status.get("message") else ""
    return f"{status['status']}{since}{message}"


def _status_note(status: Mapping[str, Any]) -> list[str]:
    return [] if status["status"] == "SUPPORTED" else [_support(status)]


def _say(text: str, indent: str, more: str | None = None) -> None:
    """`text` wrapped between words to the terminal (at most 100 columns), its first line
    indented by `indent`, the others by `more` (the same by default)."""
    if not text:
        return
    width = max(40, min(shutil.get_terminal_size().columns, 100))
    for line in textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent if more is None else more,
        break_long_words=False,
        break_on_hyphens=False,
    ):
        click.echo(line)
