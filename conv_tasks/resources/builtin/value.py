"""OS::Heat::Value: holds a value, checked against a declared type, for get_attr.

Nothing outside the stack is touched. With a `type`, the value is converted like a
template parameter of that type and a value that does not fit fails the action;
without one (as in Heat) any value is taken as it is, maps and lists included.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.sdk import (
    ANY,
    STRING,
    ActionContext,
    AttributeSchema,
    Constraint,
    Problem,
    Progress,
    PropertySchema,
    ResourceFailure,
    ResourceType,
    SupportStatus,
    coerce,
    describe,
    token_physical_id,
)

VALUE_TYPES = ("string", "number", "json", "boolean", "comma_delimited_list")


class ValueResource(ResourceType):
    """A value of a declared type, exposed as the attribute 'value'."""

    type_name: ClassVar[str] = "OS::Heat::Value"
    # Its value is kept in its plugin data: a create makes nothing anywhere else.
    makes_objects: ClassVar[bool] = False
    support_status: ClassVar[SupportStatus] = SupportStatus(version="7.0.0")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "value": PropertySchema(ANY, "The value.", required=True, update_allowed=True),
        "type": PropertySchema(
            STRING,
            "The type the value must have; none takes any value as it is.",
            constraints=(Constraint.allowed_values(*VALUE_TYPES),),
            update_allowed=True,
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "value": AttributeSchema("The value, converted to its type.")
    }

    @classmethod
    def properties_problems(cls, properties: Mapping[str, Any], *, path: str) -> list[Problem]:
        # A value known when the stack is requested that does not fit its type is refused
        # then, as Heat does, not when the resource is created.
        kind = properties.get("type")
        if kind is None:
            return []
        try:
            convert_value(kind, properties.get("value"))
        except ValueError as exc:
            return [Problem(f"{path}.value", f"does not fit the type '{kind}': it {exc}")]
        return []

    def create(self, ctx: ActionContext) -> Progress:
        converted = self._converted(ctx)
        return Progress(
            done=True,
            physical_id=token_physical_id(ctx.idempotency_token),
            data={"value": converted},
        )

    def update(self, ctx: ActionContext) -> Progress:
        return Progress(done=True, data={"value": self._converted(ctx)})

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"value": self._converted(ctx)}

    def _converted(self, ctx: ActionContext) -> Any:
        kind = ctx.properties.get("type")
        value = ctx.properties.get("value")
        if kind is None:
            return value
        try:
            return convert_value(kind, value)
        except ValueError as exc:
            raise ResourceFailure(
                f"Resource {ctx.resource_name}: value {exc}",
                resource=ctx.resource_name,
                action=ctx.action,
            ) from None


def convert_value(kind: str, value: Any) -> Any:
    """value as a parameter of type kind would be; ValueError(reason) if it is not one."""
    if kind == "string":
        return _scalar("string", value)
    if kind == "number":
        return _scalar("number", value)
    if kind == "boolean":
        return _scalar("boolean", value)
    if kind == "json":
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"is not valid JSON: {exc}.") from None
        if isinstance(value, Mapping | list):
            return value
        raise ValueError(f"must be a map, a list or a JSON string, not {describe(value)}.")
    if kind == "comma_delimited_list":
        if isinstance(value, str):
            return [part.strip() for part in value.split(",")] if value.strip() else []
        if isinstance(value, list):
            return [_scalar("string", item) for item in value]
        raise ValueError(f"must be a list or a comma-delimited string, not {describe(value)}.")
    raise ValueError(f"has unknown type {kind!r}; use one of {', '.join(VALUE_TYPES)}.")


def _scalar(kind: str, value: Any) -> Any:
    converted, reason = coerce(kind, value)
    if reason:
        raise ValueError(reason)
    return converted
