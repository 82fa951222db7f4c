"""The results of the functions over lists and maps: repeat, map_merge, map_replace,
filter, list_concat, list_concat_unique and contains, with Heat's behaviour.

Pure: each takes arguments already evaluated and returns a new value or raises
Unresolvable. It must never change its arguments.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conv_tasks.template.unresolvable import Unresolvable


def repeat(template: Any, for_each: Any, variant: str, permutations: bool = True) -> list[Any]:
    """A copy of template for each combination of the for_each values (each placeholder
    replaced in every string, keys included), or for each position when permutations is
    false."""
    if not isinstance(for_each, Mapping) or not for_each:
        raise Unresolvable("'for_each' must be a mapping of placeholders to lists")
    maps_allowed = variant in ("maps", "permutations") and permutations
    keys = list(for_each)
    values: list[list[Any]] = []
    for key in keys:
        items = for_each[key]
        if items is None:
            items = []
        if isinstance(items, Mapping) and maps_allowed:
            items = list(items)  # a map is iterated over its keys
        if not isinstance(items, list | tuple):
            kind = "lists or maps" if maps_allowed else "lists"
            raise Unresolvable(f"the values of 'for_each' must be {kind} ('{key}' is not)")
        for item in items:
            if not isinstance(item, str):
                raise Unresolvable(
                    f"the items of 'for_each' must be strings ('{key}' has {item!r:.40})"
                )
        values.append(list(items))
    if not permutations and len({len(v) for v in values}) > 1:
        raise Unresolvable("with permutations: false, the for_each lists must be equally long")
    rows: Iterable[tuple[Any, ...]] = (
        itertools.product(*values) if permutations else zip(*values, strict=True)
    )
    return [_substitute(template, keys, row) for row in rows]


def _substitute(template: Any, keys: Sequence[str], row: Sequence[str]) -> Any:
    if isinstance(template, str):
        for key, value in zip(keys, row, strict=True):
            template = template.replace(key, value)
        return template
    if isinstance(template, list | tuple):
        return [_substitute(item, keys, row) for item in template]
    if isinstance(template, Mapping):
        return {_substitute(k, keys, row): _substitute(v, keys, row) for k, v in template.items()}
    return template


def _maps(args: Any, what: str) -> list[Mapping[str, Any]]:
    if not isinstance(args, list | tuple):
        raise Unresolvable(f"the argument must be a list of {what}")
    result = []
    for i, item in enumerate(args):
        if item is None:
            item = {}
        if not isinstance(item, Mapping):
            raise Unresolvable(f"item {i} is not a map but {type(item).__name__}")
        result.append(item)
    return result


def map_merge(args: Any) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for item in _maps(args, "maps"):
        merged.update(item)
    return merged


def map_replace(source: Any, replacements: Any) -> dict[str, Any]:
    [source_map, replacement_map] = _maps([source, replacements], "maps")
    unknown = sorted(set(replacement_map) - {"keys", "values"})
    if unknown:
        raise Unresolvable(f"unknown key '{unknown[0]}' in the replacements")
    [keys, values] = _maps([replacement_map.get("keys"), replacement_map.get("values")], "maps")
    result: dict[str, Any] = {}
    for key, value in source_map.items():
        new_key = keys.get(key)
        if new_key is None:
            new_key = key
        elif not isinstance(new_key, str):
            raise Unresolvable(f"the replacement of key '{key}' must be a string")
        elif new_key in source_map and new_key != key:
            raise Unresolvable(f"key replacement '{new_key}' collides with a key in the input map")
        elif new_key in result:
            raise Unresolvable(f"key replacement '{new_key}' collides with a key in the output map")
        try:
            result[new_key] = values.get(value, value)
        except TypeError:  # a list or map value cannot be a key: it stays as it is
            result[new_key] = value
    return result


def filter_list(values: Any, sequence: Any) -> Any:
    if not sequence:
        return sequence
    if not isinstance(sequence, list | tuple):
        raise Unresolvable("the second argument must be a list")
    if not values:
        return list(sequence)
    if not isinstance(values, list | tuple):
        raise Unresolvable("the values to remove must be a list")
    return [item for item in sequence if item not in values]


def list_concat(args: Any, *, unique: bool = False) -> list[Any]:
    if not isinstance(args, list | tuple):
        raise Unresolvable("the argument must be a list of lists")
    result: list[Any] = []
    for i, item in enumerate(args):
        if item is None:
            continue
        if not isinstance(item, list | tuple):
            raise Unresolvable(f"item {i} is not a list but {type(item).__name__}")
        result.extend(item)
    if not unique:
        return result
    kept: list[Any] = []
    for item in result:
        if item not in kept:
            kept.append(item)
    return kept


def contains(value: Any, sequence: Any) -> bool:
    if not isinstance(sequence, list | tuple | str):
        raise Unresolvable("the second argument must be a list")
    if isinstance(sequence, str) and not isinstance(value, str):
        return False
    return value in sequence
