"""Recognises intrinsic function calls and reads their arguments into typed values.

A call is a mapping with exactly one key, and that key is a function name. This module
only looks at shapes; it must never know about parameters' values or resources' data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

FUNCTION_NAMES: frozenset[str] = frozenset(
    {"get_param", "get_resource", "get_attr", "str_replace", "list_join"}
)


class ArgumentError(Exception):
    """A function's arguments have the wrong shape. The message is a sentence fragment."""


@dataclass(frozen=True)
class GetParam:
    name: str
    path: tuple[Any, ...]


@dataclass(frozen=True)
class GetResource:
    name: str


@dataclass(frozen=True)
class GetAttr:
    resource: str
    attribute: str
    path: tuple[Any, ...]


@dataclass(frozen=True)
class StrReplace:
    template: Any
    params: Any


@dataclass(frozen=True)
class ListJoin:
    delimiter: Any
    lists: tuple[Any, ...]


Call = GetParam | GetResource | GetAttr | StrReplace | ListJoin


def function_call(value: Any) -> tuple[str, Any] | None:
    """(name, arguments) if value is a function call, otherwise None."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((key, args),) = value.items()
        if key in FUNCTION_NAMES:
            return key, args
    return None


def contains_function(value: Any) -> bool:
    """True if a function call appears anywhere in value."""
    return next(iter_calls(value), None) is not None


def iter_calls(value: Any) -> Iterator[tuple[str, Any]]:
    """Every function call in value, outer calls before the calls in their arguments."""
    stack = [value]
    while stack:
        item = stack.pop()
        call = function_call(item)
        if call is not None:
            yield call
            stack.append(call[1])
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))


def parse_call(name: str, args: Any) -> Call:
    """The typed arguments of a call. Raises ArgumentError if their shape is wrong."""
    if name == "get_param":
        return _get_param(args)
    if name == "get_resource":
        if not _is_name(args):
            raise ArgumentError("the argument must be the name of a resource")
        return GetResource(args)
    if name == "get_attr":
        return _get_attr(args)
    if name == "str_replace":
        return _str_replace(args)
    if name == "list_join":
        return _list_join(args)
    raise ArgumentError(f"unknown function '{name}'")


def references(value: Any) -> Iterator[GetResource | GetAttr]:
    """Every get_resource and get_attr in value (whose shapes are assumed valid)."""
    for name, args in iter_calls(value):
        if name in ("get_resource", "get_attr"):
            try:
                call = parse_call(name, args)
            except ArgumentError:
                continue
            if isinstance(call, GetResource | GetAttr):
                yield call


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _is_path_item(value: Any) -> bool:
    # Path items are keys or indexes, or a function that yields one.
    return (
        isinstance(value, str)
        or (isinstance(value, int) and not isinstance(value, bool))
        or function_call(value) is not None
    )


def _get_param(args: Any) -> GetParam:
    if _is_name(args):
        return GetParam(args, ())
    if isinstance(args, list) and args and _is_name(args[0]):
        path = tuple(args[1:])
        if not all(_is_path_item(item) for item in path):
            raise ArgumentError("path items must be strings or integers")
        return GetParam(args[0], path)
    raise ArgumentError("the argument must be a parameter name or a list [name, path...]")


def _get_attr(args: Any) -> GetAttr:
    if not (isinstance(args, list) and len(args) >= 2):
        raise ArgumentError("the argument must be a list [resource, attribute, path...]")
    resource, attribute, *path = args
    if not _is_name(resource):
        raise ArgumentError("the resource must be given as a name")
    if not _is_name(attribute):
        raise ArgumentError("the attribute must be given as a name")
    if not all(_is_path_item(item) for item in path):
        raise ArgumentError("path items must be strings or integers")
    return GetAttr(resource, attribute, tuple(path))


def _str_replace(args: Any) -> StrReplace:
    if not isinstance(args, Mapping) or set(args) != {"template", "params"}:
        raise ArgumentError("the argument must be a mapping with keys 'template' and 'params'")
    template = args["template"]
    if not (isinstance(template, str) or function_call(template) is not None):
        raise ArgumentError("'template' must be a string")
    params = args["params"]
    if function_call(params) is None:
        if not isinstance(params, Mapping):
            raise ArgumentError("'params' must be a mapping")
        if any(not _is_name(key) for key in params):
            raise ArgumentError("the keys of 'params' must be non-empty strings")
    return StrReplace(template, params)


def _list_join(args: Any) -> ListJoin:
    if not (isinstance(args, list) and len(args) >= 2):
        raise ArgumentError("the argument must be a list [delimiter, [items...], ...]")
    delimiter, *lists = args
    if not (isinstance(delimiter, str) or function_call(delimiter) is not None):
        raise ArgumentError("the delimiter must be a string")
    for item in lists:
        if not (isinstance(item, list) or function_call(item) is not None):
            raise ArgumentError("every argument after the delimiter must be a list")
    return ListJoin(delimiter, tuple(lists))
