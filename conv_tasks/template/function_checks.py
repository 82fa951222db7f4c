"""Checks every intrinsic function call in a template before anything is evaluated.

Argument shapes, that referenced parameters and resources exist, and that the template
version offers the function. It must never evaluate a function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.template.document import join_path
from conv_tasks.template.functions import (
    ArgumentError,
    GetAttr,
    GetParam,
    GetResource,
    function_call,
    parse_call,
)
from conv_tasks.template.versions import FUNCTION_SINCE, function_available


@dataclass(frozen=True)
class Scope:
    """What a function may refer to where it appears."""

    version: str
    parameters: frozenset[str]
    resources: frozenset[str]
    owner: str | None = None  # the resource whose properties or metadata are being checked


def check_functions(value: Any, path: str, scope: Scope) -> list[Problem]:
    """Every problem with the function calls anywhere in value."""
    problems: list[Problem] = []
    # An explicit stack: values here came through plain_document, so they are bounded,
    # but a loop is still cheaper than recursion.
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, item_path = stack.pop()
        call = function_call(item)
        if call is not None:
            name, args = call
            call_path = join_path(item_path, name)
            problems.extend(_check_call(name, args, call_path, scope))
            stack.append((args, call_path))
        elif isinstance(item, Mapping):
            stack.extend((v, join_path(item_path, k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, join_path(item_path, i)) for i, v in reversed(list(enumerate(item))))
    return problems


def _check_call(name: str, args: Any, path: str, scope: Scope) -> list[Problem]:
    if not function_available(name, scope.version):
        return [
            Problem(
                path,
                f"the function '{name}' needs heat_template_version {FUNCTION_SINCE[name]} "
                f"or later (this template is {scope.version})",
            )
        ]
    try:
        call = parse_call(name, args)
    except ArgumentError as exc:
        return [Problem(path, str(exc))]
    if isinstance(call, GetParam) and call.name not in scope.parameters:
        return [Problem(path, f"parameter '{call.name}' is not declared")]
    if isinstance(call, GetResource | GetAttr):
        target = call.name if isinstance(call, GetResource) else call.resource
        if target not in scope.resources:
            return [Problem(path, f"resource '{target}' is not defined in the template")]
        if target == scope.owner:
            return [Problem(path, f"resource '{target}' cannot refer to itself")]
    return []
