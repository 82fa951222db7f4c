"""`conv-tasks template validate`: the result of the engine's validate_template, for people or JSON.

Validation runs in the CLI's own process, with the resource types installed there.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from conv_tasks.cli import output


def show_validation(
    path: str,
    text: str,
    parameters: dict[str, Any],
    *,
    as_json: bool,
    environment: Sequence[str] = (),
    files: Mapping[str, str] | None = None,
) -> None:
    """Print the validation of `text` (read from `path`) with its environments and files;
    exit 1 if it has errors."""
    from conv_tasks.engine import validate_template

    result = validate_template(
        text, parameters, filename=path, environment=environment, files=files
    )
    if as_json:
        output.emit_json(result)
    else:
        for warning in result["warnings"]:
            click.echo(f"WARNING: {warning}", err=True)
        if result["valid"]:
            _show_order(result)
        for error in result["errors"]:
            click.echo(error_line(path, error), err=True)
        if result["errors"]:
            click.echo(f"{len(result['errors'])} error(s) in {path}", err=True)
    if not result["valid"]:
        sys.exit(1)


def error_line(path: str, error: dict[str, Any]) -> str:
    """FILE:LINE:COLUMN: PATH: MESSAGE, as compilers print them (editors jump to it)."""
    where = path
    if error.get("line") is not None:
        where = f"{path}:{error['line']}:{error['column']}"
    what = f"{error['path']}: {error['message']}" if error.get("path") else error["message"]
    return f"{where}: {what}"


def _show_order(result: dict[str, Any]) -> None:
    order = result["order"]
    click.echo(f"Template is valid: {len(order)} resource(s), in dependency order:")
    for name in order:
        deps = result["dependencies"].get(name) or []
        after = f"  (after {', '.join(deps)})" if deps else ""
        click.echo(f"  {name}  {result['types'][name]}{after}")
