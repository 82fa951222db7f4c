"""OS::Heat::SoftwareDeploymentGroup: one SoftwareDeployment per server, in a child stack.

The child template is generated from `servers` (group/deployment_members.py), one
member named by each key, and wrapped as a ResourceGroup's is (group/nested.py), so
the members' outputs come back through the child's outputs. Creating, updating (a key added
or removed adds or removes a member; a changed config updates every member), suspending,
resuming and deleting are a nested stack's (NestedStackResource): each member does its own
work with the server, a suspend included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.resources.builtin.group import (
    SERVERS,
    SHARED,
    child_template,
    deployment_members,
    members_from_outputs,
    servers_problems,
)
from conv_tasks.resources.builtin.software_deployment import SoftwareDeploymentResource
from conv_tasks.sdk import (
    DEFAULT_ACTION_TIMEOUT,
    DEPRECATED,
    HIDDEN,
    MAP,
    STATUS_CODE,
    STDERR,
    STDOUT,
    ActionContext,
    AttributeSchema,
    ChildRequest,
    NestedStackResource,
    Problem,
    PropertySchema,
    SupportStatus,
    TypeLookup,
    child_timeout,
)

STDOUTS = "deploy_stdouts"
STDERRS = "deploy_stderrs"
STATUS_CODES = "deploy_status_codes"
# Group attribute -> the member attribute it maps by member name.
_MEMBER_ATTRIBUTE = {STDOUTS: STDOUT, STDERRS: STDERR, STATUS_CODES: STATUS_CODE}

_MEMBER_SCHEMA = SoftwareDeploymentResource.properties_schema or {}


class SoftwareDeploymentGroup(NestedStackResource):
    """The same config deployed to several servers, one member deployment for each."""

    type_name: ClassVar[str] = "OS::Heat::SoftwareDeploymentGroup"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="5.0.0")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        SERVERS: PropertySchema(
            MAP,
            "The servers to deploy to: member name -> server id. Each key is one member "
            "deployment, named by it; adding or removing a key adds or removes one.",
            update_allowed=True,
        ),
        **{key: _MEMBER_SCHEMA[key] for key in SHARED},
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        STDOUTS: AttributeSchema("Each member's deploy_stdout, by member name.", type=MAP),
        STDERRS: AttributeSchema("Each member's deploy_stderr, by member name.", type=MAP),
        STATUS_CODES: AttributeSchema(
            "Each member's deploy_status_code, by member name.", type=MAP
        ),
    }
    dynamic_attributes: ClassVar[bool] = False

    @classmethod
    def template_problems(cls, values: Any, *, path: str, lookup: TypeLookup) -> list[Problem]:
        if not isinstance(values, Mapping):
            return []
        return servers_problems(values.get(SERVERS), path=f"{path}.{SERVERS}")

    @classmethod
    def properties_problems(cls, properties: Mapping[str, Any], *, path: str) -> list[Problem]:
        return servers_problems(properties.get(SERVERS), path=f"{path}.{SERVERS}")

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        return DEFAULT_ACTION_TIMEOUT

    def child_request(self, ctx: ActionContext) -> ChildRequest:
        members = deployment_members(ctx.properties)
        return ChildRequest(
            template=child_template(members, _MEMBER_ATTRIBUTE.values()),
            parameters={},
            timeout_mins=child_timeout(ctx),
        )

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        members = members_from_outputs(self.child_outputs(ctx))
        return {
            name: {member: data.attributes.get(attribute) for member, data in members.items()}
            for name, attribute in _MEMBER_ATTRIBUTE.items()
        }


class SoftwareDeployments(SoftwareDeploymentGroup):
    """Heat's old name of OS::Heat::SoftwareDeploymentGroup, kept so old templates work."""

    type_name: ClassVar[str] = "OS::Heat::SoftwareDeployments"
    support_status: ClassVar[SupportStatus] = SupportStatus(
        status=HIDDEN,
        version="7.0.0",
        message="Use OS::Heat::SoftwareDeploymentGroup instead.",
        substitute_class=SoftwareDeploymentGroup,
        previous_status=SupportStatus(
            status=DEPRECATED,
            version="2014.2",
            substitute_class=SoftwareDeploymentGroup,
            previous_status=SupportStatus(version="2014.1"),
        ),
    )
