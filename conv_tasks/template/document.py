"""Copies a parsed template into plain JSON data: dicts with string keys, lists and scalars.

Dates become ISO strings and tuples become lists. Anything JSON cannot hold is reported
with its path. It must never interpret what the document means.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.input_text import text_problem
from conv_tasks.limits import MAX_TEMPLATE_DEPTH, MAX_TEMPLATE_VALUES

# A template deeper or bigger than the limits is a mistake or an attack (YAML aliases can
# expand a few lines into millions of nodes), and both would exhaust the stack or memory.


class _TooBig(Exception):
    pass


def join_path(path: str, key: object) -> str:
    """The dotted path of key inside path."""
    return f"{path}.{key}" if path else str(key)


def plain_document(value: Any, path: str = "") -> tuple[Any, list[Problem]]:
    """A JSON-compatible copy of value and the problems that stopped parts being copied."""
    copier = _Copier()
    try:
        return copier.copy(value, path, 0, frozenset()), copier.problems
    except _TooBig as exc:
        return None, [Problem(path, str(exc))]


class _Copier:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.nodes = 0

    def copy(self, value: Any, path: str, depth: int, seen: frozenset[int]) -> Any:
        self.nodes += 1
        if self.nodes > MAX_TEMPLATE_VALUES:
            raise _TooBig(
                f"the template is too large: more than {MAX_TEMPLATE_VALUES} values "
                "(MAX_TEMPLATE_VALUES)"
            )
        if isinstance(value, str):
            # YAML escapes ("\0", "\uD800") make text that cannot be stored from text that can.
            problem = text_problem(value)
            if problem is not None:
                self.problems.append(Problem(path, problem))
                return None
            return value
        if value is None or isinstance(value, bool | int):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                self.problems.append(Problem(path, "numbers must be finite"))
                return None
            return value
        if isinstance(value, datetime.date | datetime.time):
            return value.isoformat()
        if isinstance(value, Mapping | list | tuple):
            # depth counts the containers around value; the document itself is level 1.
            if depth >= MAX_TEMPLATE_DEPTH:
                raise _TooBig(
                    f"the template is nested more than {MAX_TEMPLATE_DEPTH} levels deep "
                    "(MAX_TEMPLATE_DEPTH)"
                )
            if id(value) in seen:
                self.problems.append(Problem(path, "the value contains itself"))
                return None
            inner = seen | {id(value)}
            if isinstance(value, Mapping):
                return self._mapping(value, path, depth, inner)
            return [
                self.copy(item, join_path(path, i), depth + 1, inner)
                for i, item in enumerate(value)
            ]
        self.problems.append(
            Problem(path, f"a value of type {type(value).__name__} is not allowed in a template")
        )
        return None

    def _mapping(
        self, value: Mapping[Any, Any], path: str, depth: int, seen: frozenset[int]
    ) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                self.problems.append(
                    Problem(path, f"keys must be strings, not {type(key).__name__} ({key!r:.40})")
                )
                continue
            problem = text_problem(key)
            if problem is not None:
                # The path stops at the mapping: the key itself cannot be shown or stored.
                self.problems.append(Problem(path, f"a key {problem}"))
                continue
            result[key] = self.copy(item, join_path(path, key), depth + 1, seen)
        return result
