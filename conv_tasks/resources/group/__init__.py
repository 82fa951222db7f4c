"""OS::Heat::ResourceGroup, the parts that need no child stack: schemas, member names,
the generated child template, batch plans, the rollout a plugin keeps between polls, and
the member attributes the child stack hands on (what get_attr on a group means is the
template's: conv_tasks.template.group_attributes).

Everything here is pure: values in, values out. The plugin that drives a child stack
through a plan lives elsewhere; this package must never load or change a stack.
"""

from __future__ import annotations

from conv_tasks.resources.group.attributes import member_attributes_needed
from conv_tasks.resources.group.batches import (
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
from conv_tasks.resources.group.names import (
    Resize,
    member_names,
    next_skiplist,
    removed_names,
    resize,
)
from conv_tasks.resources.group.nested import (
    child_template,
    group_template,
    member_definition,
    members_from_outputs,
    substitute_index,
)
from conv_tasks.resources.group.properties import (
    BatchCreate,
    GroupProperties,
    MemberDefinition,
    RollingUpdate,
    UpdatePolicy,
    group_properties,
    update_policy,
)
from conv_tasks.resources.group.rollout import Move, NextMove, Rollout
from conv_tasks.resources.group.static import static_group_problems

__all__ = [
    "Batch",
    "BatchCreate",
    "BatchPlan",
    "GroupProperties",
    "Member",
    "MemberDefinition",
    "Move",
    "NextMove",
    "Resize",
    "RollingUpdate",
    "Rollout",
    "UpdatePolicy",
    "check_pause_fits",
    "child_template",
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
    "static_group_problems",
    "substitute_index",
    "update_policy",
]
