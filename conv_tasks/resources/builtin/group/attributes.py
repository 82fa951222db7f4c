"""Which member attributes a ResourceGroup's child stack must hand on, for the get_attr
references a template makes to the group.

What each name means, and reading it from the members' data, is the template's
(conv_tasks.template.group_attributes); this module only lists what those rules
will read. Pure: references in, attribute names out.
"""

from __future__ import annotations

from collections.abc import Sequence

from conv_tasks.sdk import (
    ATTRIBUTES,
    REFS,
    REFS_MAP,
    REMOVED_RSRC_LIST,
    PathItem,
    member_key,
)


def member_attributes_needed(
    references: Sequence[tuple[str, Sequence[PathItem]]],
) -> tuple[str, ...]:
    """The member attributes to read for these get_attr references (key, path) to the group,
    in first-use order: what the child stack's outputs must carry."""
    needed: list[str] = []
    for key, path in references:
        if key in (REFS, REFS_MAP, REMOVED_RSRC_LIST):
            continue
        if key == ATTRIBUTES:
            if path:
                needed.append(str(path[0]))
            continue
        member = member_key(key)
        if member is None:
            needed.append(key)
        elif member[1] is not None:
            needed.append(member[1])
        elif path:
            needed.append(str(path[0]))
    return tuple(dict.fromkeys(needed))
