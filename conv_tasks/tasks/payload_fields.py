"""What a public task's keyword argument is: a Field, with the Limits that bound it.

Declarations only: the worker checks payloads against these (payloads.py) and
the JSON Schemas are made from them (payload_schema.py); this module checks
nothing and imports neither.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
