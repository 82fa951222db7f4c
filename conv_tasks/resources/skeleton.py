"""A HOT template that uses one resource type: `conv-tasks resource-type show TYPE
--template-type hot`, as Heat's `resource_to_template` makes it.

Every property that is not HIDDEN becomes a parameter of the matching type (with its
description, default and constraints) and is set from it with get_param; every attribute
becomes an output that reads it with get_attr, except one that cannot be read whole (a
ResourceGroup's `attributes` needs a member attribute's name after it). The resource is
named after the last part of its type (`TestResource`). Pure: a schema in, a template
mapping out; `template validate` passes every built-in type's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conv_tasks.sdk import (
    ALLOWED_PATTERN,
    ALLOWED_VALUES,
    BOOLEAN,
    INTEGER,
    LENGTH,
    LIST,
    MAP,
    NUMBER,
    RANGE,
    STRING,
    Constraint,
    PropertySchema,
)

if TYPE_CHECKING:
    from conv_tasks.sdk import ResourceType

# Heat's skeletons are of this version; every function they use exists in it.
VERSION = "2016-10-14"
_PARAMETER_TYPES = {
    STRING: "string",
    INTEGER: "number",
    NUMBER: "number",
    BOOLEAN: "boolean",
    MAP: "json",
    LIST: "comma_delimited_list",
}


def hot_skeleton(cls: type[ResourceType]) -> dict[str, Any]:
    """The template of one resource of `cls`, its properties parameters, its attributes
    outputs."""
    resource = cls.type_name.rsplit("::", 1)[-1] or cls.type_name
    schema = {
        name: prop
        for name, prop in (cls.properties_schema or {}).items()
        if not prop.support_status.hidden
    }
    outputs = {
        name: {"description": attribute.description, "value": {"get_attr": [resource, name]}}
        for name, attribute in cls.attributes_schema.items()
        if not attribute.support_status.hidden and cls.reference_problem(name, ()) is None
    }
    return {
        "heat_template_version": VERSION,
        "description": f"Initial template of {resource}",
        "parameters": {name: _parameter(prop) for name, prop in schema.items()},
        "resources": {
            resource: {
                "type": cls.type_name,
                "properties": {name: {"get_param": name} for name in schema},
            }
        },
        "outputs": outputs,
    }


def _parameter(prop: PropertySchema) -> dict[str, Any]:
    declared: dict[str, Any] = {"type": _parameter_type(prop)}
    if prop.description:
        declared["description"] = prop.description
    if prop.default is not None:
        declared["default"] = prop.default
    constraints = [_constraint(c) for c in prop.constraints]
    if constraints:
        declared["constraints"] = constraints
    return declared


def _parameter_type(prop: PropertySchema) -> str:
    # A list of maps (or of lists) cannot be a comma-delimited list: json carries it.
    items = prop.schema if isinstance(prop.schema, PropertySchema) else None
    if prop.type == LIST and items is not None and items.type in (MAP, LIST):
        return "json"
    return _PARAMETER_TYPES.get(prop.type, "json")


def _constraint(constraint: Constraint) -> dict[str, Any]:
    shown: dict[str, Any]
    if constraint.kind in (RANGE, LENGTH):
        low, high = constraint.args
        bounds = {"min": low, "max": high}
        shown = {constraint.kind: {k: v for k, v in bounds.items() if v is not None}}
    elif constraint.kind == ALLOWED_VALUES:
        shown = {ALLOWED_VALUES: list(constraint.args)}
    else:
        shown = {ALLOWED_PATTERN: constraint.args}
    if constraint.description:
        shown["description"] = constraint.description
    return shown
