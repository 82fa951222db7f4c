"""Recognises intrinsic function calls and reads their arguments into typed values.

A call is a mapping with exactly one key, and that key is a function name. This module
only looks at shapes; it must never know about parameters' values or resources' data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.template.versions import ALL_CONDITION_FUNCTIONS, CFN_REMOVED_AT, HOT_FUNCTIONS

# Every name read as a function: HOT's, the condition functions, and the CloudFormation
# ones (recognised so that they are refused by name rather than taken for data).
FUNCTION_NAMES: frozenset[str] = HOT_FUNCTIONS | ALL_CONDITION_FUNCTIONS | frozenset(CFN_REMOVED_AT)


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
    attribute: str | None  # None: every attribute (get_attr: [resource], 2015-10-15 on)
    path: tuple[Any, ...]


Call = GetParam | GetResource | GetAttr


def function_call(value: Any) -> tuple[str, Any] | None:
    """(name, arguments) if value is a function call, otherwise None."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((key, args),) = value.items()
        # Any Fn:: key is read as a call, so that CloudFormation functions HOT never had
        # (Fn::GetAtt, Fn::If, ...) are refused by name too, never taken for data.
        if key in FUNCTION_NAMES or (isinstance(key, str) and key.startswith("Fn::")):
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
    """The typed arguments of a reference function (get_param, get_resource, get_attr).
    Raises ArgumentError if their shape is wrong; the shapes of the other functions are
    checked by function_shapes."""
    if name == "get_param":
        return _get_param(args)
    if name == "get_resource":
        if not is_name(args):
            raise ArgumentError("the argument must be the name of a resource")
        return GetResource(args)
    if name == "get_attr":
        return _get_attr(args)
    raise ArgumentError(f"'{name}' is not a reference function")


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


def is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def is_path_item(value: Any) -> bool:
    # Path items are keys or indexes, or a function that yields one.
    return (
        isinstance(value, str)
        or (isinstance(value, int) and not isinstance(value, bool))
        or function_call(value) is not None
    )


def _get_param(args: Any) -> GetParam:
    if is_name(args):
        return GetParam(args, ())
    if isinstance(args, list) and args and is_name(args[0]):
        path = tuple(args[1:])
        if not all(is_path_item(item) for item in path):
            raise ArgumentError("path items must be strings or integers")
        return GetParam(args[0], path)
    raise ArgumentError("the argument must be a parameter name or a list [name, path...]")


def _get_attr(args: Any) -> GetAttr:
    if isinstance(args, list) and len(args) == 1:
        # Whether the version allows this is function_checks' business.
        if not is_name(args[0]):
            raise ArgumentError("the resource must be given as a name")
        return GetAttr(args[0], None, ())
    if not (isinstance(args, list) and len(args) >= 2):
        raise ArgumentError("the argument must be a list [resource, attribute, path...]")
    resource, attribute, *path = args
    if not is_name(resource):
        raise ArgumentError("the resource must be given as a name")
    if not is_name(attribute):
        raise ArgumentError("the attribute must be given as a name")
    if not all(is_path_item(item) for item in path):
        raise ArgumentError("path items must be strings or integers")
    return GetAttr(resource, attribute, tuple(path))
