"""`conv-tasks template validate`: a template's validation result, for people or JSON.

The result is what the engine's validate_template made; this module only prints it.
"""

from __future__ import annotations

from typing import Any

import click

from conv_tasks.cli.render.output import emit_json


def show_validation(path: str, result: dict[str, Any], *, as_json: bool) -> None:
    """Print the validation `result` of the template read from `path`: its resources in
    dependency order, or every problem with its line and column (on stderr)."""
    if as_json:
        emit_json(result)
        return
    for warning in result["warnings"]:
        click.echo(f"WARNING: {warning}", err=True)
    if result["valid"]:
        _show_order(result)
    for error in result["errors"]:
        click.echo(error_line(path, error), err=True)
    if result["errors"]:
        click.echo(f"{len(result['errors'])} error(s) in {path}", err=True)


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
