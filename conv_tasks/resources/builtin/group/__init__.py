"""OS::Heat::ResourceGroup: the plugin (resource.py), which drives a child stack through a
plan, and the parts that need no child stack: schemas, member names, the generated child
template, batch plans, the rollout the plugin keeps between polls, the member attributes
the child stack hands on (what get_attr on a group means is the template's, which the SDK
names: member_view_data), and the servers of a deployment group (deployment_members.py,
for OS::Heat::SoftwareDeploymentGroup).

Everything but resource.py is pure: values in, values out; nothing here loads or changes
a stack but through the ChildStacks service the SDK hands the plugin.
"""

from __future__ import annotations

from conv_tasks.resources.builtin.group.attributes import member_attributes_needed
from conv_tasks.resources.builtin.group.batches import (
    Batch,
    BatchPlan,
    Member,
    check_pause_fits,
    group_definer,
    plan_batches,
    plan_create,
    plan_update,
    replay,
)
from conv_tasks.resources.builtin.group.deployment_members import (
    SERVERS,
    SHARED,
    deployment_members,
    servers_problems,
)
from conv_tasks.resources.builtin.group.names import (
    Resize,
    member_names,
    next_skiplist,
    removed_names,
    resize,
)
from conv_tasks.resources.builtin.group.nested import (
    child_template,
    group_template,
    member_definition,
    members_from_outputs,
    substitute_index,
)
from conv_tasks.resources.builtin.group.properties import (
    BatchCreate,
    GroupProperties,
    MemberDefinition,
    RollingUpdate,
    UpdatePolicy,
    group_properties,
    update_policy,
)
from conv_tasks.resources.builtin.group.resource import ResourceGroup
from conv_tasks.resources.builtin.group.rollout import Move, NextMove, Rollout
from conv_tasks.resources.builtin.group.static import static_group_problems

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.sdk",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.template",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "SERVERS",
    "SHARED",
    "Batch",
    "BatchCreate",
    "BatchPlan",
    "GroupProperties",
    "Member",
    "MemberDefinition",
    "Move",
    "NextMove",
    "Resize",
    "ResourceGroup",
    "RollingUpdate",
    "Rollout",
    "UpdatePolicy",
    "check_pause_fits",
    "child_template",
    "deployment_members",
    "group_definer",
    "group_properties",
    "group_template",
    "member_attributes_needed",
    "member_definition",
    "member_names",
    "members_from_outputs",
    "next_skiplist",
    "plan_batches",
    "plan_create",
    "plan_update",
    "removed_names",
    "replay",
    "resize",
    "servers_problems",
    "static_group_problems",
    "substitute_index",
    "update_policy",
]
