"""get_attr on a ResourceGroup: its attributes, from its members' references and attributes.

Heat's meaning of every name get_attr may give a group:

- refs: the members' references in index order; a path selects from that list.
- refs_map: member name -> reference.
- attributes + [ATTR, *path]: member name -> that member's ATTR (path applied to each).
  attributes alone names no attribute and is refused.
- removed_rsrc_list: the names removal_policies removed (the skip list), sorted.
- resource.N: member N's reference; resource.N + [ATTR, *path] and resource.N.ATTR + path:
  member N's ATTR. N is a member's name, not a position: after a removal "resource.1" may
  not exist, and asking for it is an error.
- any other name ATTR + path: the list of every member's ATTR (path applied to each).
- no name at all (get_attr [group]): refs, refs_map and removed_rsrc_list together, the
  attributes that need no member attribute named after them.

A path that does not lead anywhere gives None (per member), as in Heat. Pure: the members'
data is handed in; this module never asks a stack for it. The template layer reads a
group's attributes with it (member_view.py); the group plugin (conv_tasks.resources.builtin.group)
declares the same names in its schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.errors import InvalidInput, NotFound, Problem

REFS = "refs"
REFS_MAP = "refs_map"
ATTRIBUTES = "attributes"
REMOVED_RSRC_LIST = "removed_rsrc_list"
# resource.N (member N's reference) and resource.N.ATTR (an attribute of member N).
MEMBER_PREFIX = "resource."

PathItem = str | int


@dataclass(frozen=True)
class MemberData:
    """What one member offers its group: its reference and the attributes read from it."""

    name: str
    ref: str | None
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupView:
    """A group as its attributes see it. names: the members in index order."""

    group: str
    names: tuple[str, ...]
    members: Mapping[str, MemberData]
    skiplist: tuple[str, ...] = ()


def select(value: Any, path: Sequence[PathItem]) -> Any:
    """value indexed by each path item in turn; None where the path leads nowhere."""
    for key in path:
        if isinstance(value, Mapping):
            if key not in value and str(key) in value:
                key = str(key)
            if key not in value:
                return None
            value = value[key]
        elif isinstance(value, list | tuple) and not isinstance(key, bool):
            index = key if isinstance(key, int) else _index(key)
            if index is None or not -len(value) <= index < len(value):
                return None
            value = value[index]
        else:
            return None
    return value


def _index(key: str) -> int | None:
    try:
        return int(key)
    except ValueError:
        return None


def member_key(key: str) -> tuple[str, str | None] | None:
    """(member name, attribute or None) for resource.N and resource.N.ATTR; None otherwise.
    The attribute is everything after the second dot: attribute names may contain dots."""
    if not key.startswith(MEMBER_PREFIX):
        return None
    parts = key.split(".", 2)
    return parts[1], (parts[2] if len(parts) == 3 else None)


def reference_problem(key: str, path: Sequence[PathItem]) -> str | None:
    """Why get_attr [group, key, *path] can never have a value, as a sentence; None if it can.
    For template validation, before any member exists."""
    if key == ATTRIBUTES and not path:
        return (
            "'attributes' needs the name of a member attribute after it, "
            "as in get_attr: [group, attributes, name]."
        )
    member = member_key(key)
    if member is not None and not member[0]:
        return f"{key!r} names no member; use resource.N or resource.N.ATTRIBUTE."
    return None


def group_attribute(view: GroupView, key: str, path: Sequence[PathItem] = ()) -> Any:
    """The value of get_attr [group, key, *path]. Raises InvalidInput for a reference that
    can never have a value and NotFound for a member the group does not have."""
    reason = reference_problem(key, path)
    if reason is not None:
        raise InvalidInput([Problem(f"{view.group}.{key}", reason)], what="attribute")
    if key == REMOVED_RSRC_LIST:
        return select(sorted(view.skiplist), path)
    if key == REFS:
        return select([_member(view, n).ref for n in view.names], path)
    if key == REFS_MAP:
        return select({n: _member(view, n).ref for n in view.names}, path)
    if key == ATTRIBUTES:
        return {n: _attribute(_member(view, n), path[0], path[1:]) for n in view.names}
    member = member_key(key)
    if member is not None:
        name, attribute = member
        found = _existing_member(view, name)
        if attribute is not None:
            return _attribute(found, attribute, path)
        if not path:
            return found.ref
        return _attribute(found, path[0], path[1:])
    return [_attribute(_member(view, n), key, path) for n in view.names]


def all_group_attributes(view: GroupView) -> dict[str, Any]:
    """get_attr [group]: every attribute of the group that stands on its own ('attributes'
    needs a member attribute's name, and resource.N a member's, so neither is in it)."""
    return {key: group_attribute(view, key) for key in (REFS, REFS_MAP, REMOVED_RSRC_LIST)}


def _member(view: GroupView, name: str) -> MemberData:
    # A member with no data yet (being created) reads as nothing rather than failing the group.
    return view.members.get(name) or MemberData(name, None)


def _existing_member(view: GroupView, name: str) -> MemberData:
    if name not in view.names:
        members = ", ".join(view.names) or "none"
        raise NotFound(
            f"Resource group '{view.group}' has no member '{name}' (its members: {members})."
        )
    return _member(view, name)


def _attribute(member: MemberData, attribute: PathItem, path: Sequence[PathItem]) -> Any:
    return select(member.attributes.get(str(attribute)), path)
