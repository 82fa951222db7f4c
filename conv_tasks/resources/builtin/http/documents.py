"""The JSON a ConvTasks::HTTP::Resource sends and reads back: the id at `id_path`, the part
of an object its template sets, and secrets masked out of what it keeps. Pure.

An `id_path` is a dotted path into a JSON document: `id`, `data.id`, `items.0.id` (a whole
number picks a list's item).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

# Shown instead of a secret (as everywhere in conv_tasks: conv_tasks.engine.definition.MASK).
MASK = "******"
# The pattern an id_path follows: dotted names, none empty.
ID_PATH_PATTERN = r"[^.]+(\.[^.]+)*"


class Missing:
    """Nothing is at the path (None is a value a document may hold)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()


def found_at(document: Any, id_path: str) -> Any:
    """What `document` holds at `id_path`, or MISSING."""
    here = document
    for part in id_path.split("."):
        if isinstance(here, Mapping) and part in here:
            here = here[part]
        elif isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        else:
            return MISSING
    return here


def placed_at(document: Mapping[str, Any], id_path: str, value: Any) -> dict[str, Any] | None:
    """A copy of `document` holding `value` at `id_path` (maps made on the way); None if the
    path runs through something that is not a map."""
    placed = copy.deepcopy(dict(document))
    here: dict[str, Any] = placed
    *parents, last = id_path.split(".")
    for part in parents:
        inner = here.setdefault(part, {})
        if not isinstance(inner, dict):
            return None
        here = inner
    here[last] = value
    return placed


def projected(real: Any, wanted: Any) -> Any:
    """The part of `real` that `wanted` sets: in maps, only the keys `wanted` has (a service
    adds its own fields, an id, timestamps); anything else whole."""
    if isinstance(real, Mapping) and isinstance(wanted, Mapping):
        return {key: projected(real[key], wanted[key]) for key in wanted if key in real}
    return real


def masked(value: Any, secrets: tuple[str, ...]) -> Any:
    """`value` with every secret in it, in a key or a string, shown as MASK."""
    shown = [secret for secret in secrets if secret]
    if not shown:
        return value

    def mask(text: str) -> str:
        for secret in shown:
            text = text.replace(secret, MASK)
        return text

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return mask(item)
        if isinstance(item, Mapping):
            return {mask(str(key)): walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        return item

    return walk(value)


def depth(value: Any) -> int:
    """How deeply maps and lists nest in `value` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            inner = list(item.values())
        elif isinstance(item, list):
            inner = item
        else:
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in inner)
    return deepest
