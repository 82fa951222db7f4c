"""Resource types as Heat lists and shows them, from the registry installed beside the edge
(as `conv-tasks resource-type` reads it): the types the workers run are the same package's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conv_tasks.edge import not_found
from conv_tasks.errors import NotFound


def type_list(query: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    from conv_tasks.resources import default_registry

    registry = default_registry()
    name = (query.get("name") or [""])[-1]
    status = (query.get("support_status") or [""])[-1].upper()
    with_description = (query.get("with_description") or ["false"])[-1].lower() == "true"
    kept = []
    for cls in registry.list():
        # A substring, not Heat's regular expression: a caller's pattern could backtrack.
        if name and name not in cls.type_name:
            continue
        if status and cls.support_status.status != status:
            continue
        kept.append(cls)
    if with_description:
        return {
            "resource_types": [
                {"resource_type": c.type_name, "description": (c.__doc__ or "").strip()}
                for c in kept
            ]
        }
    return {"resource_types": [c.type_name for c in kept]}


def type_show(type_name: str) -> dict[str, Any]:
    from conv_tasks.resources import default_registry

    try:
        return dict(default_registry().show(type_name))
    except NotFound:
        raise not_found(f"The resource type {type_name[:255]!r} was not found.") from None


def type_template(type_name: str) -> dict[str, Any]:
    from conv_tasks.resources import default_registry, hot_skeleton

    registry = default_registry()
    type_show(type_name)
    return dict(hot_skeleton(registry.get(type_name)))
