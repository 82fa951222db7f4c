"""Checking property values against a schema: check_values (resolved values: checked,
coerced, defaults filled, or one InvalidInput listing every problem), static_problems and
static_section_problems (the same checks on a template before anything runs, taking
intrinsic functions on trust). No side effects.

The engine prepares a resource's properties with these (conv_tasks.resources.properties);
a type whose properties hold another schema (a group's members, an update_policy) checks
them with the same rules.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.sdk.coercion import coerce, describe
from conv_tasks.sdk.schema import LIST, MAP, PropertySchema
from conv_tasks.sdk.translation import translate
from conv_tasks.suggestions import did_you_mean
from conv_tasks.template import contains_function, function_call, misspelt_function

if TYPE_CHECKING:
    from conv_tasks.sdk.resource_type import ResourceType

__all__ = ["check_values", "static_problems", "static_section_problems"]


def check_values(
    schema: Mapping[str, PropertySchema], values: Any, *, path: str, what: str = "properties"
) -> dict[str, Any]:
    """values checked against schema, defaults filled; or InvalidInput(what=what) with every
    problem. For sections that are not a resource's properties but follow the same rules
    (a resource's update_policy)."""
    checker = _Checker(None)
    result = checker.properties(schema, values, path)
    if checker.problems:
        raise InvalidInput(checker.problems, what=what)
    return result


def static_problems(
    resource_type: type[ResourceType], values: Mapping[str, Any], *, path: str
) -> list[Problem]:
    """Every problem visible in unresolved template properties; functions are taken on trust."""
    try:
        translated = translate(
            values, resource_type().translation_rules(), path=path, unknown=contains_function
        )
    except InvalidInput as exc:
        return list(exc.problems)
    schema = resource_type.properties_schema
    if schema is None or function_call(translated) is not None:
        # No schema, or the whole properties section is one function call ({get_param: p}).
        return []
    checker = _Checker(contains_function)
    checked = checker.properties(schema, translated, path)
    if not checker.problems and not contains_function(translated):
        # Every value is known already: what spans several properties can be judged too.
        return resource_type.properties_problems(checked, path=path)
    return checker.problems


def static_section_problems(
    schema: Mapping[str, PropertySchema], values: Any, *, path: str
) -> list[Problem]:
    """Every problem visible in an unresolved section checked like properties (a resource's
    update_policy); functions are taken on trust."""
    if function_call(values) is not None:
        return []  # the whole section is one function call
    checker = _Checker(contains_function)
    checker.properties(schema, values, path)
    return checker.problems


class _Checker:
    """Walks values and schema together, collecting problems instead of stopping at the first."""

    def __init__(self, unknown: Callable[[Any], bool] | None) -> None:
        self.unknown = unknown
        self.problems: list[Problem] = []

    def _is_unknown(self, value: Any) -> bool:
        return self.unknown is not None and value is not None and self.unknown(value)

    def _problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def properties(
        self, schema: Mapping[str, PropertySchema], values: Any, where: str
    ) -> dict[str, Any]:
        if not isinstance(values, Mapping):
            self._problem(where, f"must be a map of properties, not {describe(values)}.")
            return {}
        for name in values:
            if name not in schema:
                visible = [n for n in sorted(schema) if not schema[n].support_status.hidden]
                known = did_you_mean(str(name), visible)
                known = known or f"known properties: {', '.join(visible) or 'none'}."
                self._problem(f"{where}.{name}", f"is not a known property; {known}")
        result: dict[str, Any] = {}
        for name, prop in schema.items():
            value = values.get(name)
            here = f"{where}.{name}"
            if value is None:
                if prop.default is not None:
                    result[name] = copy.deepcopy(prop.default)
                elif prop.required:
                    self._problem(here, "is required but has no value.")
                    result[name] = None
                else:
                    result[name] = None
                continue
            result[name] = self.value(prop, value, here)
        return result

    def value(self, prop: PropertySchema, value: Any, where: str) -> Any:
        unknown = self._is_unknown(value)
        if unknown and not isinstance(value, list | tuple) and not _literal_map(prop, value):
            return value
        converted, reason = coerce(prop.type, value)
        if reason:
            misspelt = misspelt_function(value)
            self._problem(where, f"{reason.rstrip('.')} ({misspelt})." if misspelt else reason)
            return value
        before = len(self.problems)
        if prop.type == LIST and isinstance(prop.schema, PropertySchema):
            item_schema = prop.schema
            converted = [
                self.value(item_schema, item, f"{where}[{n}]") for n, item in enumerate(converted)
            ]
        elif prop.type == MAP and isinstance(prop.schema, Mapping):
            converted = self.properties(prop.schema, converted, where)
        if unknown or len(self.problems) > before:
            # Constraints judge the whole value; parts of it are unknown or already wrong.
            return converted
        for constraint in prop.constraints:
            reason = constraint.violation(converted)
            if reason:
                self._problem(where, reason)
        return converted


def _literal_map(prop: PropertySchema, value: Any) -> bool:
    """A map written out in the template (some keys are sub-properties), not a function call.

    A function is a map too ({"get_param": "net"}), but none of its keys is a
    sub-property, so it cannot be checked before the stack runs.
    """
    return (
        isinstance(value, Mapping)
        and prop.type == MAP
        and isinstance(prop.schema, Mapping)
        and bool(value.keys() & prop.schema.keys())
    )
