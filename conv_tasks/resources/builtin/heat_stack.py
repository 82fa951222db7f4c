"""OS::Heat::Stack: a child stack from a template given inline, in this stack's region.

The child is a real stack with its own traversal (the SDK's NestedStackResource). Its
outputs are the attribute `outputs` (and each output by its own name, as Heat allows);
its reference is the child stack's id. A `context` naming a region is refused: conv_tasks
has one region, its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from conv_tasks.sdk import (
    ANY,
    DEFAULT_ACTION_TIMEOUT,
    MAP,
    MAX_TIMEOUT_MINS,
    NUMBER,
    STRING,
    ActionContext,
    AttributeSchema,
    ChildRequest,
    ChildTemplateSource,
    Constraint,
    NestedStackResource,
    PropertySchema,
    SupportStatus,
    child_timeout,
    contains_function,
    function_call,
)

OUTPUTS = "outputs"
STACK_NAME = "stack_name"

_NO_REGION = Constraint.length(
    max=0,
    description=(
        "conv_tasks runs nested stacks in its own region only: a stack in another region "
        "(context.region_name) is not supported"
    ),
)


class HeatStackResource(NestedStackResource):
    """A nested stack from the `template` property."""

    type_name: ClassVar[str] = "OS::Heat::Stack"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.1")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "template": PropertySchema(
            ANY,
            "The child stack's template: HOT as a YAML or JSON string, or a mapping.",
            required=True,
            update_allowed=True,
        ),
        "parameters": PropertySchema(
            MAP, "The child stack's parameter values.", default={}, update_allowed=True
        ),
        "timeout": PropertySchema(
            NUMBER,
            "Minutes the child stack's operations may take (the parent's deadline, when "
            "sooner, still holds).",
            update_allowed=True,
            constraints=(Constraint.range(1, MAX_TIMEOUT_MINS),),
        ),
        "context": PropertySchema(
            MAP,
            "Where the child stack runs: only this region (no region_name).",
            schema={"region_name": PropertySchema(STRING, constraints=(_NO_REGION,))},
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        OUTPUTS: AttributeSchema("The child stack's outputs, by name.", type=MAP),
        STACK_NAME: AttributeSchema("The child stack's name.", type=STRING),
    }

    @classmethod
    def child_template_source(cls, properties: Mapping[str, Any]) -> ChildTemplateSource | None:
        source = properties.get("template")
        if isinstance(source, str | Mapping) and not contains_function(source):
            return ChildTemplateSource("template", template=source)
        return None

    @classmethod
    def unknown_child_parameters(
        cls, properties: Mapping[str, Any], unknown: Callable[[Any], bool]
    ) -> frozenset[str] | None:
        # Only the values of `parameters` unknown, and written out: those parameters alone.
        given = properties.get("parameters")
        unsure = {key for key, value in properties.items() if unknown(value)}
        if unsure != {"parameters"} or not isinstance(given, Mapping):
            return None
        if function_call(given) is not None:
            return None
        return frozenset(str(key) for key, value in given.items() if unknown(value))

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        chosen = properties.get("timeout")
        return float(chosen) * 60 if chosen else DEFAULT_ACTION_TIMEOUT

    def child_request(self, ctx: ActionContext) -> ChildRequest:
        template = ctx.properties.get("template")
        return ChildRequest(
            template=template if isinstance(template, Mapping | str) else {},
            parameters=dict(ctx.properties.get("parameters") or {}),
            timeout_mins=child_timeout(ctx, ctx.properties.get("timeout")),
        )

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        outputs = self.child_outputs(ctx)
        return {**outputs, OUTPUTS: outputs, STACK_NAME: ctx.data.get(STACK_NAME)}
