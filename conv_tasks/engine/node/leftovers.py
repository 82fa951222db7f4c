"""What a create left without a physical id: which versions still need a delete by token.

A create may make its object and then end before its type returned the object's id: it
was interrupted (a cancel, a stack delete, its deadline), it failed after the service had
acted, or its worker died. The version then has no physical id, but the object may exist;
only the create's idempotency token names it. Such a version is never dropped or purged
without a delete, which gets that token (ActionContext.create_token) to find the object by.
Pure: the node that acts reads the versions and asks here.
"""

from __future__ import annotations

from collections.abc import Mapping

from conv_tasks.db import ResourceVersion
from conv_tasks.engine.node.adopt import ADOPT
from conv_tasks.statuses import Action, Status


def action_token(stack_id: str, version_id: int, action: Action) -> str:
    """The idempotency token of `action` on a version: the same on every retry and every
    host, so that a step started again makes nothing twice."""
    return f"{stack_id}:{version_id}:{action}"


def create_token(stack_id: str, version: ResourceVersion) -> str:
    """The token the version's create ran with."""
    return action_token(stack_id, version.id, Action.CREATE)


def unaccounted(version: ResourceVersion, *, makes_objects: bool) -> bool:
    """Whether the version's create may have made an object that no physical id names: its
    type makes objects (ResourceType.makes_objects) and `unfinished_create(version)`."""
    return makes_objects and unfinished_create(version)


def unfinished_create(version: ResourceVersion) -> bool:
    """Whether the version has no physical id although its create began and did not
    complete (or a delete by its create's token began and has not completed).

    Not a version still INIT (its create never began: the engine records a create of a type
    that makes objects as begun before its first step), nor one whose create completed (its
    type said it made nothing to name, or an update in place took its object on to a newer
    version), nor one that adopts an external_id (its create only looks)."""
    if version.physical_id is not None:
        return False
    if isinstance(version.plugin_data.get(ADOPT), Mapping):
        return False
    return version.action in (Action.CREATE, Action.DELETE) and version.status != Status.COMPLETE
