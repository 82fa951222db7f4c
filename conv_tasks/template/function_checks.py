"""Checks every intrinsic function call in a template before anything is evaluated.

Argument shapes, that referenced parameters, resources and conditions exist, that the
template version offers the function, and that condition functions appear only where a
condition is expected. Functions conv_tasks refuses (yaql, CloudFormation's) are refused
by name. It must never evaluate a function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.suggestions import suggesting
from conv_tasks.template.document import join_path
from conv_tasks.template.function_shapes import check_shape
from conv_tasks.template.functions import (
    ArgumentError,
    GetAttr,
    GetParam,
    GetResource,
    function_call,
    parse_call,
)
from conv_tasks.template.versions import (
    ALL_CONDITION_FUNCTIONS,
    CFN_REMOVED_AT,
    CONDITION_FUNCTIONS,
    CONDITIONS_SINCE,
    HOT_FUNCTIONS,
    function_since,
    variant,
)

# What to write instead of a CloudFormation function, where HOT has an equivalent.
_CFN_INSTEAD = {
    "Fn::Join": "list_join",
    "Fn::Split": "str_split",
    "Fn::Replace": "str_replace",
    "Fn::Select": "a path in get_param or get_attr, or str_split with an index",
    "Fn::ResourceFacade": "resource_facade",
    "Ref": "get_resource or get_param",
    "Fn::GetAtt": "get_attr",
    "Fn::Sub": "str_replace",
    "Fn::If": "if",
    "Fn::Equals": "equals",
    "Fn::Not": "not",
    "Fn::And": "and",
    "Fn::Or": "or",
}
_REFERENCES = ("get_param", "get_resource", "get_attr")


@dataclass(frozen=True)
class Scope:
    """What a function may refer to where it appears."""

    version: str
    parameters: frozenset[str]
    resources: frozenset[str]
    owner: str | None = None  # the resource whose properties or metadata are being checked
    conditions: frozenset[str] = frozenset()  # the names in the conditions section


def check_functions(value: Any, path: str, scope: Scope) -> list[Problem]:
    """Every problem with the function calls anywhere in value (a property, metadata or
    output value)."""
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
            found = _check_call(name, args, call_path, scope)
            problems.extend(found)
            if found:
                continue
            if name == "if":
                problems.extend(check_condition(args[0], join_path(call_path, 0), scope))
                branches = [(v, join_path(call_path, i)) for i, v in enumerate(args) if i]
                stack.extend(reversed(branches))
            else:
                stack.append((args, call_path))
        elif isinstance(item, Mapping):
            stack.extend((v, join_path(item_path, k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, join_path(item_path, i)) for i, v in reversed(list(enumerate(item))))
    return problems


def check_condition(value: Any, path: str, scope: Scope) -> list[Problem]:
    """Problems with a condition: a condition name, a boolean or a condition function."""
    if isinstance(value, bool):
        return []
    if isinstance(value, str):
        if value in scope.conditions:
            return []
        return [Problem(path, f"condition '{value}' is not defined in the conditions section")]
    call = function_call(value)
    if call is None:
        return [Problem(path, "must be a condition name, true, false or a condition function")]
    name, args = call
    call_path = join_path(path, name)
    refused = _refusal(name, scope.version) or _not_a_condition_function(name, scope.version)
    if refused is not None:
        return [Problem(call_path, refused)]
    try:
        check_shape(name, args, "plain")
    except ArgumentError as exc:
        return [Problem(call_path, str(exc))]
    if name == "get_param":
        found = _check_reference(name, args, call_path, scope)
        if found or not isinstance(args, list):
            return found
        # Path items may be condition functions themselves.
        for i, item in enumerate(args[1:], start=1):
            found.extend(_check_condition_values(item, join_path(call_path, i), scope))
        return found
    if name == "not":
        return check_condition(args, call_path, scope)
    if name in ("and", "or"):
        problems: list[Problem] = []
        for i, item in enumerate(args):
            problems.extend(check_condition(item, join_path(call_path, i), scope))
        return problems
    # equals and contains compare values, which may come from condition functions.
    return _check_condition_values(args, call_path, scope)


def _check_condition_values(value: Any, path: str, scope: Scope) -> list[Problem]:
    call = function_call(value)
    if call is not None:
        return check_condition(value, path, scope)
    problems: list[Problem] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            problems.extend(_check_condition_values(v, join_path(path, k), scope))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            problems.extend(_check_condition_values(v, join_path(path, i), scope))
    return problems


def _not_a_condition_function(name: str, version: str) -> str | None:
    if name in CONDITION_FUNCTIONS[version]:
        return None
    if name in ALL_CONDITION_FUNCTIONS:
        return _needs_version(name, version)
    allowed = ", ".join(sorted(CONDITION_FUNCTIONS[version]))
    return f"the function '{name}' cannot be used in a condition; conditions may use {allowed}"


def _refusal(name: str, version: str) -> str | None:
    """Why conv_tasks refuses a function whatever the template version, if it does."""
    if name == "yaql":
        return "yaql is not supported by conv_tasks"
    if name in CFN_REMOVED_AT:
        instead = _CFN_INSTEAD.get(name)
        hint = f"; use {instead}" if instead else ""
        removed = CFN_REMOVED_AT[name]
        if version >= removed:
            return (
                f"the CloudFormation function '{name}' was removed in heat_template_version "
                f"{removed} (this template is {version}) and is not supported by conv_tasks" + hint
            )
        return f"the CloudFormation function '{name}' is not supported by conv_tasks" + hint
    if name.startswith("Fn::"):
        instead = _CFN_INSTEAD.get(name)
        hint = f"; use {instead}" if instead else ""
        return (
            f"the CloudFormation function '{name}' is not supported by conv_tasks (HOT "
            "templates never had it)" + hint
        )
    return None


def _needs_version(name: str, version: str) -> str:
    return (
        f"the function '{name}' needs heat_template_version {function_since(name)} "
        f"or later (this template is {version})"
    )


def _check_call(name: str, args: Any, path: str, scope: Scope) -> list[Problem]:
    refused = _refusal(name, scope.version)
    if refused is not None:
        return [Problem(path, refused)]
    used = variant(name, scope.version)
    if used is None:
        if name in HOT_FUNCTIONS or scope.version < CONDITIONS_SINCE:
            return [Problem(path, _needs_version(name, scope.version))]
        return [
            Problem(
                path,
                f"'{name}' is a condition function: use it in the conditions section, in a "
                "condition key or as the condition of an if",
            )
        ]
    if name in _REFERENCES:
        return _check_reference(name, args, path, scope)
    try:
        check_shape(name, args, used)
    except ArgumentError as exc:
        return [Problem(path, str(exc))]
    if name == "get_file":
        # Files are put in when the template is loaded; one left here was not found.
        return [Problem(path, f"file '{args}' is not among the files given with the template")]
    return []


def _check_reference(name: str, args: Any, path: str, scope: Scope) -> list[Problem]:
    try:
        call = parse_call(name, args)
    except ArgumentError as exc:
        return [Problem(path, str(exc))]
    if isinstance(call, GetParam) and call.name not in scope.parameters:
        message = f"parameter '{call.name}' is not declared"
        return [Problem(path, suggesting(message, call.name, scope.parameters))]
    if (
        isinstance(call, GetAttr)
        and call.attribute is None
        and variant("get_attr", scope.version) != "all_attributes"
    ):
        return [
            Problem(
                path,
                "get_attr without an attribute name needs heat_template_version "
                f"2015-10-15 or later (this template is {scope.version})",
            )
        ]
    if isinstance(call, GetResource | GetAttr):
        target = call.name if isinstance(call, GetResource) else call.resource
        if target not in scope.resources:
            message = f"resource '{target}' is not defined in the template"
            return [Problem(path, suggesting(message, target, scope.resources))]
        if target == scope.owner:
            return [Problem(path, f"resource '{target}' cannot refer to itself")]
    return []
