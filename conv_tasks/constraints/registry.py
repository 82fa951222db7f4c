"""The checkers installed in this process, found through their entry points.

It only finds and calls checkers; what a missing one means (a warning or a refusal) is the
engine's decision.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any, Protocol

from conv_tasks.errors import InvalidInput, Problem

ENTRY_POINT_GROUP = "conv_tasks.constraints"


class Checker(Protocol):
    """A custom constraint: why `value` breaks it (a phrase without the value, such as
    "is not an IP address"), or None when the value passes."""

    def __call__(self, value: Any) -> str | None: ...


class EntryPointLike(Protocol):
    """The part of importlib.metadata.EntryPoint the loader uses."""

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> str: ...

    def load(self) -> Any: ...


@dataclass(frozen=True)
class ConstraintCheckers:
    """Checkers by constraint name, and whether a constraint without one is refused."""

    checkers: Mapping[str, Checker] = field(default_factory=lambda: MappingProxyType({}))
    strict: bool = False

    def knows(self, name: str) -> bool:
        return name in self.checkers

    def names(self) -> list[str]:
        return sorted(self.checkers)

    def check(self, name: str, value: Any) -> str | None:
        """Why `value` breaks the constraint `name` (which must be known), or None.
        A checker that raises is a failed check, never an error of the request's."""
        try:
            reason = self.checkers[name](value)
        except Exception as exc:  # a plugin's bug must not become a server error
            return f"could not be checked (the checker raised {type(exc).__name__})"
        return None if reason is None else str(reason)

    def strictly(self, strict: bool) -> ConstraintCheckers:
        """These checkers, refusing (strict) or warning of a constraint nobody provides."""
        return replace(self, strict=strict)


def load_checkers(eps: Iterable[EntryPointLike]) -> ConstraintCheckers:
    """The checkers behind eps. InvalidInput naming every entry point that is broken: one
    that does not load, is not callable, or takes a name another entry point has."""
    found: dict[str, Checker] = {}
    origins: dict[str, str] = {}
    problems: list[Problem] = []
    for ep in eps:
        where = f"entry_points.{ENTRY_POINT_GROUP}.{ep.name}"
        try:
            checker = ep.load()
        except Exception as exc:  # any import error is the plugin's: report it
            problems.append(Problem(where, f"cannot be loaded: {type(exc).__name__}: {exc}."))
            continue
        if not callable(checker):
            problems.append(Problem(where, f"{checker!r} is not callable."))
            continue
        if ep.name in found:
            if found[ep.name] is checker:
                continue  # the same object declared twice (an editable install and a wheel)
            problems.append(
                Problem(where, f"is already provided by {origins[ep.name]}; names must be unique.")
            )
            continue
        found[ep.name] = checker
        origins[ep.name] = ep.value
    if problems:
        raise InvalidInput(problems, what="constraint plugins")
    return ConstraintCheckers(MappingProxyType(found))


@functools.cache
def installed_checkers() -> ConstraintCheckers:
    """Every checker installed (conv_tasks' own included), not strict; found once per process."""
    return load_checkers(entry_points(group=ENTRY_POINT_GROUP))
