"""What an update node must do to a resource: a pure decision on the stored versions.

Never touches the database: the node loads the versions, asks `decide`, and
acts on the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conv_tasks.engine.status import COMPLETE, CREATE, DELETE, FAILED, IN_PROGRESS, INIT

NOOP = "noop"  # already converged: nothing to do
RESUME = "resume"  # an action was cut off (worker killed): carry it on
CREATE_NEW = "create"  # the head version was never created
UPDATE = "update"  # update in place: a new version takes over the physical resource
REPLACE = "replace"  # a new version with a new physical resource; the old one is cleaned up later
REINSTATE = "reinstate"  # an older version still exists and already matches: make it the head again


@dataclass(frozen=True)
class VersionView:
    """What the decision needs to know about one stored version."""

    id: int
    version: int
    type: str
    physical_id: str | None
    action: str
    status: str
    definition_hash: str | None
    replaced_by: int | None
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class Decision:
    verdict: str
    version: VersionView  # the version acted on (the head, or the one to reinstate)
    reason: str = ""


def decide(
    head: VersionView,
    versions: Sequence[VersionView],
    *,
    type_name: str,
    definition_hash: str,
    properties: Mapping[str, Any],
    needs_replacement: Callable[[Mapping[str, Any], Mapping[str, Any]], bool],
) -> Decision:
    """Choose how to bring the resource from its head version to the new definition."""
    if head.status == IN_PROGRESS:
        return Decision(RESUME, head, f"{head.action} was interrupted")
    if head.action == INIT:
        return Decision(CREATE_NEW, head)
    if head.action == DELETE:
        return Decision(REPLACE, head, "the previous version was deleted")
    same_type = head.type == type_name
    if same_type and head.status == COMPLETE and head.definition_hash == definition_hash:
        return Decision(NOOP, head)
    for candidate in versions:
        if (
            candidate.id != head.id
            and candidate.type == type_name
            and candidate.status == COMPLETE
            and candidate.action not in (INIT, DELETE)
            and candidate.physical_id is not None
            and candidate.definition_hash == definition_hash
        ):
            return Decision(REINSTATE, candidate, f"version {candidate.version} matches")
    if not same_type:
        return Decision(REPLACE, head, f"type changed from {head.type} to {type_name}")
    if head.status == FAILED and head.action == CREATE:
        return Decision(REPLACE, head, "the previous create failed")
    if head.physical_id is None:
        return Decision(REPLACE, head, "no physical resource")
    if needs_replacement(head.properties, properties):
        return Decision(REPLACE, head, "a property that cannot be updated in place changed")
    return Decision(UPDATE, head)
