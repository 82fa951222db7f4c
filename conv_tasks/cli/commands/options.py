"""The options several commands share, and reading what a user gave with them.

A template and its environments (-t, -e) are read from disk with every file
they refer to; -P and --parameters-json become one mapping of parameter values;
--tags becomes a list. A value that cannot be read or parsed is a usage error
that names the option, before anything is sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from conv_tasks.limits import MAX_NESTING_DEPTH
from conv_tasks.tags import split_tags

if TYPE_CHECKING:
    from conv_tasks.local_files import Collected

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
nested_depth_option = click.option(
    "--nested-depth",
    type=click.IntRange(0, MAX_NESTING_DEPTH),
    default=0,
    show_default=True,
    help="Also include nested stacks this many levels down.",
)


def _read_template(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:
        raise click.BadParameter(f"cannot read template {path!r}: {exc.strerror}") from None


def read_template_files(template_file: str | None, environment_files: tuple[str, ...]) -> Collected:
    """The template, environments and every file they refer to, read from disk; each
    environment checked here first, so a problem names its file."""
    from conv_tasks.local_files import collect
    from conv_tasks.template import parse_environment

    if template_file is not None:
        _read_template(template_file)  # the usual message for a template that cannot be read
    found = collect(template_file, environment_files)
    for path, text in zip(environment_files, found.environments, strict=True):
        parse_environment(text, name=path)
    return found


def parameter_values(pairs: tuple[str, ...], json_text: str | None) -> dict[str, Any]:
    """The values of -P KEY=VALUE (each wins over --parameters-json's of the same key)."""
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


def tag_list(text: str | None) -> list[str] | None:
    """--tags a,b as a list; absent stays None (on update: keep or clear as Heat does)."""
    return None if text is None else split_tags(text)
