"""What an update node must do to a resource: a pure decision on the stored versions.

Never touches the database: the node claims the versions, asks `decide`, and
acts on the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from conv_tasks.db import ResourceVersion
from conv_tasks.statuses import Action, Status


class Verdict(StrEnum):
    NOOP = "noop"  # already converged: nothing to do
    RESUME = "resume"  # an action was cut off (worker killed): carry it on
    CREATE = "create"  # the head version was never created: create it
    UPDATE = "update"  # update in place: a new version takes over the physical resource
    REPLACE = "replace"  # a new version with a new physical resource; the old one is cleaned up
    REINSTATE = "reinstate"  # an older version still exists and already matches: head again


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    version: ResourceVersion  # the version acted on (the head, or the one to reinstate)
    reason: str = ""


def head_of(versions: Sequence[ResourceVersion]) -> ResourceVersion | None:
    """The resource's head: its newest version that nothing replaced."""
    heads = [v for v in versions if v.replaced_by is None]
    return max(heads, key=lambda v: v.version) if heads else None


def _no_substitutes(old_type: str, new_type: str) -> bool:
    return False


def _not_in_place(head: ResourceVersion) -> bool:
    return False


def settles(finished: ResourceVersion, *, type_name: str, definition_hash: str) -> bool:
    """Whether an action that just finished on `finished` leaves the resource as the
    traversal's definition wants it.

    An action the traversal started itself does by construction. One it took over (the
    worker that began it died, and a newer traversal resumed it with the same token) was
    started for the older traversal's definition, which may not be this one: then the node
    must converge afresh, and `decide` chooses update, replacement or reinstatement.
    """
    return (
        finished.status == Status.COMPLETE
        and finished.type == type_name
        and finished.definition_hash == definition_hash
    )


def decide(
    head: ResourceVersion,
    versions: Sequence[ResourceVersion],
    *,
    type_name: str,
    definition_hash: str,
    properties: Mapping[str, Any],
    needs_replacement: Callable[[Mapping[str, Any], Mapping[str, Any]], bool],
    substitutes: Callable[[str, str], bool] = _no_substitutes,
    repaired_in_place: Callable[[ResourceVersion], bool] = _not_in_place,
) -> Decision:
    """Choose how to bring the resource from its head version to the new definition.

    `substitutes(old_type, new_type)` says whether new_type is old_type's substitute
    (seed 004): such a change of type converges in place. It is asked only when the type
    changed, so an unchanged resource costs nothing more. `repaired_in_place(head)` says
    whether an unhealthy (CHECK_FAILED) resource is updated rather than replaced (a nested
    resource whose child's own check failed); it is asked only for such a head.
    """
    if head.status == Status.IN_PROGRESS:
        return Decision(Verdict.RESUME, head, f"{head.action} was interrupted")
    if head.action == Action.INIT:
        return Decision(Verdict.CREATE, head)
    if head.action == Action.DELETE:
        return Decision(Verdict.REPLACE, head, "the previous version was deleted")
    same_type = head.type == type_name
    if head.action == Action.CHECK and head.status == Status.FAILED:
        if same_type and repaired_in_place(head):
            # A nested resource whose child failed its own check: the child's update
            # replaces its failed resources, as Heat does.
            return Decision(Verdict.UPDATE, head, "its nested stack failed its check")
        # Unhealthy (a failed stack check, or marked so): replaced, as Heat does, even if
        # its definition did not change. Nothing older is reinstated in its place either.
        why = head.status_reason or "it was found unhealthy"
        return Decision(Verdict.REPLACE, head, f"the resource is unhealthy: {why}")
    if same_type and head.status == Status.COMPLETE and head.definition_hash == definition_hash:
        return Decision(Verdict.NOOP, head)
    for candidate in versions:
        if (
            candidate.id != head.id
            and candidate.type == type_name
            and candidate.status == Status.COMPLETE
            and candidate.action not in (Action.INIT, Action.DELETE)
            and candidate.physical_id is not None
            and candidate.definition_hash == definition_hash
            # Leased by a clean-up (alive, or dead before it let go): its delete may have
            # begun, whatever its row still says. It is not brought back but purged.
            and candidate.lock_nonce is None
        ):
            return Decision(Verdict.REINSTATE, candidate, f"version {candidate.version} matches")
    if not same_type and not substitutes(head.type, type_name):
        return Decision(Verdict.REPLACE, head, f"type changed from {head.type} to {type_name}")
    if head.status == Status.FAILED and head.action == Action.CREATE:
        return Decision(Verdict.REPLACE, head, "the previous create failed")
    if head.physical_id is None:
        return Decision(Verdict.REPLACE, head, "no physical resource")
    if needs_replacement(head.properties, properties):
        return Decision(Verdict.REPLACE, head, "a property that cannot be updated in place changed")
    return Decision(Verdict.UPDATE, head)
