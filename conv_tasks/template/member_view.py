"""get_attr on a resource that hands on its members' data whole (OS::Heat::ResourceGroup).

Such a resource's attributes hold one entry, MEMBER_VIEW: its member names, each member's
reference and attributes, and its skip list. get_attr's path is then applied per member,
as Heat does for a group (`[group, attributes, name]`, `[group, name, key]`), not to one
precomputed value. Pure: it reads the data handed in and must never look up a stack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conv_tasks.template.group_attributes import (
    GroupView,
    MemberData,
    all_group_attributes,
    group_attribute,
)

MEMBER_VIEW = "__member_view__"


def member_view_data(
    group: str,
    names: Sequence[str],
    members: Mapping[str, tuple[str | None, Mapping[str, Any]]],
    skiplist: Sequence[str],
) -> dict[str, Any]:
    """The JSON a group hands on under MEMBER_VIEW. members: name -> (reference, attributes)."""
    return {
        "group": group,
        "names": list(names),
        "members": {
            name: {"ref": ref, "attributes": dict(attributes)}
            for name, (ref, attributes) in members.items()
        },
        "skiplist": list(skiplist),
    }


def read_member_view(data: Mapping[str, Any], attribute: str | None, path: Sequence[Any]) -> Any:
    """get_attr [group, attribute, *path] from the data member_view_data made (attribute
    None: get_attr [group], the group's attributes that need no member named). Raises
    ConvTasksError (InvalidInput, NotFound) for a reference that has no value."""
    members = {
        name: MemberData(name, member.get("ref"), dict(member.get("attributes") or {}))
        for name, member in (data.get("members") or {}).items()
    }
    view = GroupView(
        group=str(data.get("group") or ""),
        names=tuple(data.get("names") or ()),
        members=members,
        skiplist=tuple(data.get("skiplist") or ()),
    )
    if attribute is None:
        return all_group_attributes(view)
    return group_attribute(view, attribute, path)
