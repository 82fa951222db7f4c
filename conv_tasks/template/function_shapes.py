"""The argument shapes of the functions that compute values (everything but references).

Checked when a template is loaded, so that evaluation only meets data problems. A value
that is itself a function call may stand for any argument whose value is data; its
result is checked when it is evaluated. It must never evaluate anything.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from conv_tasks.template.functions import ArgumentError, function_call, is_name

MAKE_URL_KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")
FACADE_ATTRIBUTES = ("metadata", "deletion_policy", "update_policy")


def check_shape(name: str, args: Any, variant: str) -> None:
    """Raise ArgumentError if a call's arguments have the wrong shape for its variant."""
    checker = _CHECKERS.get(name)
    if checker is not None:
        checker(args, variant)


def _is_call(value: Any) -> bool:
    return function_call(value) is not None


def _list_of(args: Any, count: int, form: str) -> list[Any]:
    if not (isinstance(args, list) and len(args) == count):
        raise ArgumentError(f"the argument must be a list {form}")
    return args


def _string_or_call(value: Any, what: str) -> None:
    if not (isinstance(value, str) or _is_call(value)):
        raise ArgumentError(f"{what} must be a string")


def _list_or_call(value: Any, what: str) -> None:
    if not (isinstance(value, list) or _is_call(value)):
        raise ArgumentError(f"{what} must be a list")


def _str_replace(args: Any, variant: str) -> None:
    if not isinstance(args, Mapping) or set(args) != {"template", "params"}:
        raise ArgumentError("the argument must be a mapping with keys 'template' and 'params'")
    _string_or_call(args["template"], "'template'")
    params = args["params"]
    if not _is_call(params):
        if not isinstance(params, Mapping):
            raise ArgumentError("'params' must be a mapping")
        if any(not is_name(key) for key in params):
            raise ArgumentError("the keys of 'params' must be non-empty strings")


def _list_join(args: Any, variant: str) -> None:
    if not (isinstance(args, list) and len(args) >= 2):
        raise ArgumentError("the argument must be a list [delimiter, [items...], ...]")
    delimiter, *lists = args
    _string_or_call(delimiter, "the delimiter")
    if variant == "single" and len(lists) != 1:
        raise ArgumentError(
            "joins exactly one list in this template version; several lists need "
            "heat_template_version 2015-10-15 or later"
        )
    for item in lists:
        if not (item is None or isinstance(item, list) or _is_call(item)):
            raise ArgumentError("every argument after the delimiter must be a list")


def _repeat(args: Any, variant: str) -> None:
    allowed = {"template", "for_each"} | ({"permutations"} if variant == "permutations" else set())
    if not isinstance(args, Mapping) or not {"template", "for_each"} <= set(args):
        raise ArgumentError("the argument must be a mapping with keys 'template' and 'for_each'")
    unknown = sorted(set(args) - allowed)
    if unknown:
        extra = " ('permutations' needs heat_template_version 2017-09-01 or later)"
        hint = extra if "permutations" in unknown else ""
        raise ArgumentError(
            f"unknown key '{unknown[0]}'; expected one of " + ", ".join(sorted(allowed)) + hint
        )
    permutations = args.get("permutations", True)
    if not isinstance(permutations, bool):
        raise ArgumentError("'permutations' must be true or false")
    for_each = args["for_each"]
    if _is_call(for_each):
        return
    if not isinstance(for_each, Mapping) or not for_each:
        raise ArgumentError("'for_each' must be a mapping of placeholders to lists")
    maps_allowed = variant in ("maps", "permutations") and permutations
    for key, values in for_each.items():
        if not is_name(key):
            raise ArgumentError("the placeholders in 'for_each' must be non-empty strings")
        if _is_call(values) or isinstance(values, list):
            continue
        if isinstance(values, Mapping) and maps_allowed:
            continue
        kind = "lists or maps" if maps_allowed else "lists"
        raise ArgumentError(f"the values of 'for_each' must be {kind} ('{key}' is not)")


def _digest(args: Any, variant: str) -> None:
    algorithm, value = _list_of(args, 2, "[algorithm, value]")
    _string_or_call(algorithm, "the algorithm")
    _string_or_call(value, "the value")
    if isinstance(algorithm, str) and algorithm.lower() not in hashlib.algorithms_available:
        raise ArgumentError(
            f"unknown algorithm '{algorithm}'; expected one of md5, sha1, sha224, sha256, "
            "sha384, sha512"
        )


def _str_split(args: Any, variant: str) -> None:
    if not (isinstance(args, list) and len(args) in (2, 3)):
        raise ArgumentError(
            "the argument must be a list [delimiter, string] or [delimiter, string, index]"
        )
    _string_or_call(args[0], "the delimiter")
    _string_or_call(args[1], "the string")
    if len(args) == 3:
        index = args[2]
        if not (_is_call(index) or _integer_like(index)):
            raise ArgumentError("the index must be an integer")


def _integer_like(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    # ASCII digits only: int() refuses some characters that str.isdigit() accepts.
    return isinstance(value, str) and re.fullmatch(r"\s*-?[0-9]{1,18}\s*", value) is not None


def _maps(args: Any, variant: str) -> None:
    if _is_call(args):
        return
    if not isinstance(args, list):
        raise ArgumentError("the argument must be a list of maps")
    for i, item in enumerate(args):
        if not (item is None or isinstance(item, Mapping) or _is_call(item)):
            raise ArgumentError(f"item {i} is not a map")


def _map_replace(args: Any, variant: str) -> None:
    if not (isinstance(args, list) and len(args) == 2):
        raise ArgumentError("the argument must be a list [map, {keys: {...}, values: {...}}]")
    source, replacements = args
    if not (isinstance(source, Mapping) or _is_call(source)):
        raise ArgumentError("the first item must be a map")
    if _is_call(replacements):
        return
    if not isinstance(replacements, Mapping):
        raise ArgumentError("the second item must be a map with 'keys' and/or 'values'")
    unknown = sorted(set(replacements) - {"keys", "values"})
    if unknown:
        raise ArgumentError(
            f"unknown key '{unknown[0]}' in the replacements; expected keys, values"
        )
    for key in ("keys", "values"):
        value = replacements.get(key)
        if not (value is None or isinstance(value, Mapping) or _is_call(value)):
            raise ArgumentError(f"'{key}' must be a map")


def _filter(args: Any, variant: str) -> None:
    values, sequence = _list_of(args, 2, "[values, list]")
    _list_or_call(values, "the values to remove")
    _list_or_call(sequence, "the list to filter")


def _make_url(args: Any, variant: str) -> None:
    if _is_call(args):
        return
    if not isinstance(args, Mapping):
        raise ArgumentError("the argument must be a mapping of URL parts")
    unknown = sorted(set(args) - set(MAKE_URL_KEYS))
    if unknown:
        raise ArgumentError(
            f"unknown key '{unknown[0]}'; expected one of " + ", ".join(MAKE_URL_KEYS)
        )
    for key, value in args.items():
        if _is_call(value):
            continue
        if key == "query":
            if not isinstance(value, Mapping):
                raise ArgumentError("'query' must be a map")
        elif key == "port":
            if not _integer_like(value) or not 0 < int(value) <= 65535:
                raise ArgumentError("'port' must be an integer from 1 to 65535")
        elif not isinstance(value, str):
            raise ArgumentError(f"'{key}' must be a string")


def _lists(args: Any, variant: str) -> None:
    if _is_call(args):
        return
    if not isinstance(args, list):
        raise ArgumentError("the argument must be a list of lists")
    for i, item in enumerate(args):
        if not (item is None or isinstance(item, list) or _is_call(item)):
            raise ArgumentError(f"item {i} is not a list")


def _two_values(form: str) -> Callable[[Any, str], None]:
    def check(args: Any, variant: str) -> None:
        _list_of(args, 2, form)

    return check


def _get_file(args: Any, variant: str) -> None:
    if not is_name(args):
        raise ArgumentError("the argument must be the name of a file")


def _resource_facade(args: Any, variant: str) -> None:
    if args not in FACADE_ATTRIBUTES:
        raise ArgumentError("the argument must be one of " + ", ".join(FACADE_ATTRIBUTES))


def _if(args: Any, variant: str) -> None:
    counts = (2, 3) if variant == "nullable" else (3,)
    if not (isinstance(args, list) and len(args) in counts):
        form = "[condition, value_if_true, value_if_false]"
        if variant == "nullable":
            form += " or [condition, value_if_true]"
        raise ArgumentError(f"the argument must be a list {form}")


def _not(args: Any, variant: str) -> None:
    if args is None:
        raise ArgumentError("the argument must be a condition")


def _boolean(args: Any, variant: str) -> None:
    if not (isinstance(args, list) and len(args) >= 2):
        raise ArgumentError("the argument must be a list of at least 2 conditions")


_CHECKERS: dict[str, Callable[[Any, str], None]] = {
    "str_replace": _str_replace,
    "str_replace_strict": _str_replace,
    "str_replace_vstrict": _str_replace,
    "list_join": _list_join,
    "repeat": _repeat,
    "digest": _digest,
    "str_split": _str_split,
    "map_merge": _maps,
    "map_replace": _map_replace,
    "filter": _filter,
    "make_url": _make_url,
    "list_concat": _lists,
    "list_concat_unique": _lists,
    "contains": _two_values("[value, sequence]"),
    "equals": _two_values("[value_1, value_2]"),
    "get_file": _get_file,
    "resource_facade": _resource_facade,
    "if": _if,
    "not": _not,
    "and": _boolean,
    "or": _boolean,
}
