"""The options of a command that sends a request, made from the request's declaration.

Each field a request declares (conv_tasks.requests) is taken the way its `cli` says: the
command's NAME argument (which the command declares itself), the files read from disk
(-t and -e: the template, its environments and the files they refer to), the parameter
values (-P, --parameters-json), or an option of its own (--timeout-mins, --tags, ...)
named after the field, with the field's help. `request_options` adds those options in the
order of the request's fields; `read_request` turns what the user gave into the request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from conv_tasks.cli.commands.options import (
    environment_option,
    param_json_option,
    param_option,
    parameter_values,
    read_template_files,
)
from conv_tasks.requests import CliInput, CliOption, Declared, Request, declared_fields

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R", bound=Request)

# What the options read from disk give each field the CLI takes as CliInput.FILES.
_READ_FROM_FILES = {"template": "template", "environment": "environments", "files": "files"}


def _template_option(required: bool) -> Callable[[F], F]:
    return click.option(
        "-t",
        "--template",
        "template_file",
        required=required,
        help="HOT template file." if required else "New HOT template file.",
    )


def _option(field: Declared, cli: CliOption) -> Callable[[F], F]:
    """The option of a field the CLI takes as an option of its own, named after the field."""
    kind = field.spec.wire.kinds[0]
    attrs: dict[str, Any] = {"help": cli.help or field.spec.help, "default": field.default}
    if cli.metavar is not None:
        attrs["metavar"] = cli.metavar
    if cli.multiple:
        attrs["multiple"] = True
    if kind is bool and "/" not in cli.flags[0]:
        attrs["is_flag"] = True
    elif kind is int:
        attrs["type"] = int
    return click.option(*cli.flags, field.name, **attrs)


def request_options(request: type, *, template_required: bool | None = None) -> Callable[[F], F]:
    """Add the options of `request` to a command (whose NAME argument it declares itself).
    `template_required`: whether -t must be given, when that is not whether the request
    requires its template (a preview does not; its command does)."""
    added: list[Callable[[F], F]] = []
    for field in declared_fields(request):
        cli = field.spec.cli
        if cli is CliInput.FILES and field.name == "template":
            required = field.required if template_required is None else template_required
            added += [_template_option(required), environment_option]
        elif cli is CliInput.PARAMETERS:
            added += [param_option, param_json_option]
        elif isinstance(cli, CliOption):
            added.append(_option(field, cli))

    def add(command: F) -> F:
        for option in reversed(added):  # click lists options in the order they decorate
            command = option(command)
        return command

    return add


def read_request(request: type[R], name: str, given: Mapping[str, Any]) -> R:
    """The request a command's NAME and options (as request_options added them) ask for:
    the files read from disk and the values parsed, each problem a usage error naming its
    option before anything is sent."""
    values: dict[str, Any] = {}
    read = None
    for field in declared_fields(request):
        cli = field.spec.cli
        if cli is CliInput.ARGUMENT:
            values[field.name] = name
        elif cli is CliInput.FILES:
            if read is None:
                read = read_template_files(given.get("template_file"), given["environment_files"])
            values[field.name] = getattr(read, _READ_FROM_FILES[field.name])
        elif cli is CliInput.PARAMETERS:
            values[field.name] = parameter_values(given["parameters"], given["parameters_json"])
        elif isinstance(cli, CliOption):
            value = given[field.name]
            values[field.name] = value if value is None or cli.parse is None else cli.parse(value)
    return request(**values)
