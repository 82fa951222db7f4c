"""Whether an unhealthy nested resource is repaired in place, as Heat decides it.

A nested resource (OS::Heat::Stack, a provider template, a group) that a stack check found
CHECK_FAILED because its child's own check failed is updated, not replaced: the child's
update then replaces just its own CHECK_FAILED resources. One a user marked unhealthy
(its child is not CHECK_FAILED) is replaced whole. Asked only for a CHECK_FAILED head, so
it costs nothing to resources that are healthy or not nested. Reads; never writes.
"""

from __future__ import annotations

from conv_tasks.db import ResourceVersion
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.resources import ResourceType
from conv_tasks.statuses import Action, Status, state_name

CHILD_CHECK_FAILED = state_name(Action.CHECK, Status.FAILED)


def repaired_in_place(
    env: EngineEnv, plugin_type: type[ResourceType], head: ResourceVersion
) -> bool:
    """True if `head` is a nested resource whose live child ended its check CHECK_FAILED."""
    if not plugin_type.owns_child_stack or head.physical_id is None:
        return False
    child = env.child_stacks().get(head.physical_id)
    return not child.deleted and child.state == CHILD_CHECK_FAILED
