"""What a public task's keyword argument is (a Field, with the Limits that bound it), and
what one field of a request is on every surface (a RequestField).

Declarations only: the worker checks payloads against Fields
(conv_tasks.tasks.payloads) and the JSON Schemas are made from them
(conv_tasks.tasks.payload_schema); the CLI makes its options from CliOptions. This
module checks nothing and imports none of those.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from conv_tasks.errors import Problem


@dataclass(frozen=True)
class Limit:
    """A value from conv_tasks.limits with the constant's name, which refusals give."""

    value: int
    name: str


@dataclass(frozen=True)
class Field:
    """One keyword argument of a public task.

    `is_name`: a string that names something (conv_tasks.input_text rules);
    `low`/`high`: inclusive bounds of an integer; `max_bytes`: the most the
    value may weigh as JSON (a string: its UTF-8 text); `items`: what a list's items or
    a mapping's values may be; `check`: the problems of a value of the right type, each
    at its own path (a list's items); `schema`: more JSON Schema keywords for the field
    (what `check` refuses, as far as a schema can say).
    """

    name: str
    kinds: tuple[type, ...]
    required: bool = False
    default: Any = None
    description: str = ""
    is_name: bool = False
    low: int | None = None
    high: Limit | None = None
    max_bytes: Limit | None = None
    items: tuple[type, ...] = ()  # the kinds a list's items (a mapping's values) may be
    check: Callable[[Any, str], list[Problem]] | None = None
    schema: Mapping[str, Any] | None = None


class Surface(StrEnum):
    """Where a request's field is given."""

    CLIENT = "client"  # a keyword argument of conv_tasks.client.Client's method
    TASK = "task"  # a keyword argument of the public task (and its JSON Schema)
    CLI = "cli"  # what `conv-tasks` takes: an argument, an option, a file it reads
    HEAT = "heat"  # a field of a Heat request body at the HTTP edge


class CliInput(StrEnum):
    """A field `conv-tasks` does not take as an option of its own."""

    ARGUMENT = "argument"  # the command's NAME
    FILES = "files"  # read from disk: the template (-t), environments (-e), the files they name
    PARAMETERS = "parameters"  # -P KEY=VALUE and --parameters-json


@dataclass(frozen=True)
class CliOption:
    """A field `conv-tasks` takes as an option of its own: click's declarations of it
    (`--timeout-mins`, `--disable-rollback/--enable-rollback`), its help when the option's
    form says more than the field's help (None: the field's), whether it may be given
    again (each one an item of a list), and how its text becomes the field's value (None:
    the value as click parsed it)."""

    flags: tuple[str, ...]
    help: str | None = None
    metavar: str | None = None
    multiple: bool = False
    parse: Callable[[str], Any] | None = None


@dataclass(frozen=True)
class RequestField:
    """One field of a request, declared once (in the annotation of the request's dataclass
    field: conv_tasks.requests.stack).

    `wire` is the public task's keyword argument: its name (the dataclass field's), JSON
    kinds, the worker's checks, and `description`, the help users read on every surface;
    its `required` and `default` are the dataclass field's. `cli` says how `conv-tasks`
    takes it (None: it does not), `heat` the keys of a Heat request body it comes from
    ((): the HTTP edge does not carry it). The Client and the task carry every field."""

    wire: Field
    cli: CliOption | CliInput | None = None
    heat: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.wire.name

    @property
    def help(self) -> str:
        return self.wire.description

    @property
    def surfaces(self) -> frozenset[Surface]:
        carried = {Surface.CLIENT, Surface.TASK}
        if self.cli is not None:
            carried.add(Surface.CLI)
        if self.heat:
            carried.add(Surface.HEAT)
        return frozenset(carried)

    def saying(self, help: str, cli: CliOption | CliInput | None = None) -> RequestField:
        """The same field with another help (and CLI option), for a request that means
        something else by it (an update keeps what is omitted; a create has defaults)."""
        wire = dataclasses.replace(self.wire, description=help)
        return dataclasses.replace(self, wire=wire, cli=self.cli if cli is None else cli)
