"""OS::Heat::SoftwareConfig: a script or document for a server's agent to run.

A config never changes: any change of its properties replaces it, and the
deployments that used the old one keep the snapshot they took. Its
reference (get_resource) is the id a SoftwareDeployment's `config` names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.sdk import (
    ANY,
    BOOLEAN,
    INPUT_TYPES,
    LIST,
    MAP,
    STRING,
    UNGROUPED,
    ActionContext,
    AttributeSchema,
    Constraint,
    DeploymentStore,
    Progress,
    PropertySchema,
    ResourceType,
    SoftwareConfig,
    SupportStatus,
    engine_service,
    token_physical_id,
)

_TYPE = PropertySchema(
    STRING,
    "The type of the value.",
    default="String",
    constraints=(Constraint.allowed_values(*INPUT_TYPES),),
)
_NAME = PropertySchema(STRING, "The name.", required=True, constraints=(Constraint.length(1),))

INPUT_SCHEMA: Mapping[str, PropertySchema] = {
    "name": _NAME,
    "type": _TYPE,
    "default": PropertySchema(ANY, "The value when the deployment gives none."),
    "description": PropertySchema(STRING, "What the input is for.", default=""),
}
OUTPUT_SCHEMA: Mapping[str, PropertySchema] = {
    "name": _NAME,
    "type": _TYPE,
    "description": PropertySchema(STRING, "What the output is.", default=""),
    "error_output": PropertySchema(
        BOOLEAN, "When the server sets this output, the deployment fails.", default=False
    ),
}


def deployment_store(ctx: ActionContext) -> DeploymentStore:
    """The store the engine handed the action, or a failure saying none was."""
    return engine_service(ctx, ctx.deployments, "deployment store")


class SoftwareConfigResource(ResourceType):
    """A configuration (script, document) that SoftwareDeployments run on servers."""

    type_name: ClassVar[str] = "OS::Heat::SoftwareConfig"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.1")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "group": PropertySchema(
            STRING,
            "The hook that runs the config on the server (for example script).",
            default=UNGROUPED,
            immutable=True,
        ),
        "config": PropertySchema(
            STRING, "The config itself: a script, or a document for the hook.", immutable=True
        ),
        "options": PropertySchema(MAP, "Options for the hook.", immutable=True),
        "inputs": PropertySchema(
            LIST, "The inputs the config takes.", schema=INPUT_SCHEMA, immutable=True
        ),
        "outputs": PropertySchema(
            LIST, "The outputs the config produces.", schema=OUTPUT_SCHEMA, immutable=True
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "config": AttributeSchema("The config itself.", type=STRING),
    }

    def create(self, ctx: ActionContext) -> Progress:
        config_id = token_physical_id(ctx.idempotency_token)
        store = deployment_store(ctx)
        store.save_config(
            ctx.stack_id,
            SoftwareConfig.from_properties(config_id, ctx.resource_name, ctx.properties),
        )
        return Progress(done=True, physical_id=config_id)

    def delete(self, ctx: ActionContext) -> Progress:
        config_id = ctx.physical_id
        if config_id is None and ctx.create_token is not None:
            # A create that ended before its id was recorded saved under its token's id.
            config_id = token_physical_id(ctx.create_token)
        if config_id is not None:
            deployment_store(ctx).delete_config(config_id)
        return Progress(done=True)

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"config": ctx.properties.get("config") or ""}
