"""A ResourceGroup's properties and update_policy, checked and turned into values.

group_properties and update_policy take resolved values (no functions left),
check them against the schemas in schema.py plus what a schema cannot say,
and return frozen values; bad input raises InvalidInput naming every problem
with its template path. Pure: nothing here looks at the members.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.resources.builtin.group import schema as s
from conv_tasks.sdk import InvalidInput, Problem, check_values, describe


@dataclass(frozen=True)
class MemberDefinition:
    """resource_def: what every member is, before its index is put in.

    properties leaves out the properties whose value is null, as Heat does, so
    that a member's definition does not change when a null is added or removed.
    """

    type: str
    properties: Mapping[str, Any]
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class GroupProperties:
    """The checked properties of one group."""

    count: int
    index_var: str
    resource_def: MemberDefinition
    # Every resource_list entry of every removal policy, in order: a member name ("2"),
    # an index (2) or a member's reference.
    removal_entries: tuple[str | int, ...] = ()
    removal_mode: str = s.APPEND


@dataclass(frozen=True)
class RollingUpdate:
    max_batch_size: int = 1
    min_in_service: int = 0
    pause_time: float = 0.0


@dataclass(frozen=True)
class BatchCreate:
    max_batch_size: int = 1
    pause_time: float = 0.0


@dataclass(frozen=True)
class UpdatePolicy:
    """A group's update_policy; a part that is absent is None (an empty map enables it)."""

    rolling_update: RollingUpdate | None = None
    batch_create: BatchCreate | None = None


def group_properties(values: Mapping[str, Any] | None, *, path: str) -> GroupProperties:
    """values (a group's resolved properties) checked; path is where they are in the template,
    such as resources.web.properties. Raises InvalidInput(what="properties")."""
    checked = check_values(s.PROPERTIES, values or {}, path=path)
    problems: list[Problem] = []
    entries = _removal_entries(
        checked[s.REMOVAL_POLICIES], f"{path}.{s.REMOVAL_POLICIES}", problems
    )
    definition = checked[s.RESOURCE_DEF]
    member_type = definition[s.DEF_TYPE]
    if not member_type.strip():
        problems.append(
            Problem(f"{path}.{s.RESOURCE_DEF}.{s.DEF_TYPE}", "must name a resource type.")
        )
    if problems:
        raise InvalidInput(problems, what="properties")
    member_properties = definition[s.DEF_PROPERTIES] or {}
    return GroupProperties(
        count=checked[s.COUNT],
        index_var=checked[s.INDEX_VAR],
        resource_def=MemberDefinition(
            type=member_type,
            properties={k: v for k, v in member_properties.items() if v is not None},
            metadata=definition[s.DEF_METADATA],
        ),
        removal_entries=entries,
        removal_mode=checked[s.REMOVAL_POLICIES_MODE],
    )


def _removal_entries(
    policies: list[Mapping[str, Any]], path: str, problems: list[Problem]
) -> tuple[str | int, ...]:
    entries: list[str | int] = []
    for n, policy in enumerate(policies):
        for m, entry in enumerate(policy[s.RESOURCE_LIST] or []):
            reason = removal_entry_problem(entry)
            if reason:
                problems.append(Problem(f"{path}[{n}].{s.RESOURCE_LIST}[{m}]", reason))
            else:
                entries.append(entry)
    return tuple(entries)


def removal_entry_problem(entry: Any) -> str | None:
    """Why entry cannot stand for a member in a removal policy; None if it can."""
    if isinstance(entry, str) or (isinstance(entry, int) and not isinstance(entry, bool)):
        return None
    return (
        "must be a member name, index or reference (a string or an integer), "
        f"not {describe(entry)}."
    )


def update_policy(values: Mapping[str, Any] | None, *, path: str) -> UpdatePolicy:
    """A group's update_policy section checked; path is where it is (resources.web.update_policy).
    Raises InvalidInput(what="update_policy")."""
    if values is None:
        return UpdatePolicy()
    checked = check_values(s.UPDATE_POLICY, values, path=path, what="update_policy")
    rolling = checked[s.ROLLING_UPDATE]
    batch = checked[s.BATCH_CREATE]
    return UpdatePolicy(
        rolling_update=None
        if rolling is None
        else RollingUpdate(
            max_batch_size=rolling[s.MAX_BATCH_SIZE],
            min_in_service=rolling[s.MIN_IN_SERVICE],
            pause_time=float(rolling[s.PAUSE_TIME]),
        ),
        batch_create=None
        if batch is None
        else BatchCreate(
            max_batch_size=batch[s.MAX_BATCH_SIZE], pause_time=float(batch[s.PAUSE_TIME])
        ),
    )
