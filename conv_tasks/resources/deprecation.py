"""Warnings for templates that use deprecated, hidden or unsupported things.

A warning never stops a stack: old templates keep working (seed 004). These
are sentences for the user, naming where the thing is used, since when its
status holds, why, and what to use instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from conv_tasks.sdk import LIST, MAP, SUPPORTED, PropertySchema

if TYPE_CHECKING:
    from conv_tasks.sdk import ResourceType


def deprecation_warnings(
    resource_type: type[ResourceType], values: Mapping[str, Any], *, path: str
) -> list[str]:
    """Warnings for the type itself and every property used in values.

    path is the resource's path ("resources.old"); values are its template
    properties, before translation (so uses of old property names are seen).
    """
    warnings = []
    status = resource_type.support_status
    if status.status != SUPPORTED:
        warnings.append(f"{path}: resource type {resource_type.type_name} is {status.describe()}")
    schema = resource_type.properties_schema
    if schema is not None and isinstance(values, Mapping):
        _walk_properties(schema, values, f"{path}.properties", warnings)
    return warnings


def _walk_properties(
    schema: Mapping[str, PropertySchema], values: Mapping[str, Any], where: str, out: list[str]
) -> None:
    for name, value in values.items():
        prop = schema.get(name)
        if prop is None or value is None:
            continue
        here = f"{where}.{name}"
        if prop.support_status.status != SUPPORTED:
            out.append(f"{here}: property {name} is {prop.support_status.describe()}")
        _walk_value(prop, value, here, out)


def _walk_value(prop: PropertySchema, value: Any, where: str, out: list[str]) -> None:
    if prop.type == MAP and isinstance(prop.schema, Mapping) and isinstance(value, Mapping):
        _walk_properties(prop.schema, value, where, out)
    elif prop.type == LIST and isinstance(prop.schema, PropertySchema) and isinstance(value, list):
        for number, item in enumerate(value):
            _walk_value(prop.schema, item, f"{where}[{number}]", out)
