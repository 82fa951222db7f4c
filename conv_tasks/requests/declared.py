"""Reading a request's declaration: its fields as the surfaces carry them.

A request is a frozen dataclass whose every field is annotated
`Annotated[type, RequestField]` and whose `TASK` names its public task. These
functions read that once per class (and refuse, at import, a field declared
without its RequestField or under another name) and give each surface what it
needs: the task its Fields, the Client the JSON it sends, the edge the Heat keys.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from conv_tasks.requests.fields import Field, RequestField


class Request(Protocol):
    """A request: a dataclass instance whose class names the public task it is sent as."""

    TASK: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Any]]


@dataclass(frozen=True)
class Declared:
    """One field of a request class: its RequestField, and whether the caller must give it
    (else its `default`, which is also what the worker fills in when it is left out)."""

    spec: RequestField
    required: bool
    default: Any = None

    @property
    def name(self) -> str:
        return self.spec.name


def _default(field: dataclasses.Field[Any]) -> tuple[bool, Any]:
    if field.default is not dataclasses.MISSING:
        return False, field.default
    if field.default_factory is not dataclasses.MISSING:
        return False, field.default_factory()
    return True, None


@functools.cache
def declared_fields(request: type) -> tuple[Declared, ...]:
    """The fields of a request class, in their order; TypeError for a field whose annotation
    holds no RequestField, or one of another name."""
    hints = typing.get_type_hints(request, include_extras=True)
    found = []
    for field in dataclasses.fields(request):
        extras = getattr(hints[field.name], "__metadata__", ())
        specs = [extra for extra in extras if isinstance(extra, RequestField)]
        if len(specs) != 1 or specs[0].name != field.name:
            raise TypeError(
                f"{request.__name__}.{field.name} must be annotated with one RequestField "
                f"of that name (conv_tasks.requests), found {[s.name for s in specs]}"
            )
        required, default = _default(field)
        found.append(Declared(specs[0], required, default))
    return tuple(found)


def field_names(request: type) -> frozenset[str]:
    return frozenset(declared.name for declared in declared_fields(request))


def task_fields(request: type) -> list[Field]:
    """The public task's keyword arguments (but the tenant): each field's wire Field, required
    and defaulted as the dataclass field is."""
    return [
        dataclasses.replace(d.spec.wire, required=d.required, default=d.default)
        for d in declared_fields(request)
    ]


def heat_keys(request: type) -> frozenset[str]:
    """The keys of a Heat request body that carry the request's fields."""
    return frozenset(key for d in declared_fields(request) for key in d.spec.heat)


def _plain(value: Any) -> Any:
    """A value as JSON takes it: mappings as dicts, sequences (but text) as lists."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [dict(item) if isinstance(item, Mapping) else item for item in value]
    return value


def payload(request: Request) -> dict[str, Any]:
    """The public task's keyword arguments for `request`, but the tenant. A field left at
    None or at its default is left out: the worker fills in the same default, and a request
    that uses no newer field is one an older worker takes."""
    sent: dict[str, Any] = {}
    for declared in declared_fields(type(request)):
        value = _plain(getattr(request, declared.name))
        if value is None or (not declared.required and value == declared.default):
            continue
        sent[declared.name] = value
    return sent
