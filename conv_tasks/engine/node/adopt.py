"""Adopting an existing object (a resource's `external_id`) instead of creating one.

A resource that names an external_id is not created: the create step observes the object
with that id through its type's `observe` and, if it exists, takes it as its own (physical
id = external_id). What `observe` read back is recorded as the resource's properties, so
that the next update diffs the template against the real object and converges it like any
other resource. The type's `create` is never called. Pure decisions here; the node acts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from conv_tasks.db import ResourceVersion
from conv_tasks.provider_errors import Fatal
from conv_tasks.resources import ActionContext, Progress, ResourceType
from conv_tasks.statuses import Action, Status

# Plugin data the engine keeps for a create that adopts: {"id": the external_id}, and once
# the object was found, {"properties": what observe read back} too.
ADOPT = "__conv_tasks_adopt__"


def adopting(ctx: ActionContext, external_id: str) -> ActionContext:
    """The first step's context of a create that adopts `external_id`."""
    return replace(ctx, data={**ctx.data, ADOPT: {"id": external_id}})


def adopts(ctx: ActionContext) -> bool:
    """Whether the step is one of a create that adopts an object."""
    return ctx.action == Action.CREATE and isinstance(ctx.data.get(ADOPT), Mapping)


def adopt(plugin: ResourceType, ctx: ActionContext) -> Progress:
    """The create step of a resource that adopts: observe the object, never make one."""
    external_id = str(ctx.data[ADOPT]["id"])
    type_name = type(plugin).type_name
    observed = plugin.observe(replace(ctx, physical_id=external_id))
    if observed is None:
        raise Fatal(
            f"Resource {ctx.resource_name}: type {type_name} cannot observe, so it cannot "
            f"adopt {external_id!r} (external_id).",
            resource=ctx.resource_name,
            action=ctx.action,
        )
    if not observed.exists:
        raise Fatal(
            f"Resource {ctx.resource_name}: its external_id {external_id!r} names no existing "
            f"{type_name} object.",
            resource=ctx.resource_name,
            action=ctx.action,
        )
    data = {
        **observed.data,
        ADOPT: {"id": external_id, "properties": dict(observed.properties)},
    }
    return Progress(done=True, physical_id=external_id, data=data)


def adopted_fields(
    recorded: Mapping[str, Any], version: ResourceVersion, data: Mapping[str, Any]
) -> dict[str, Any]:
    """What a finished create records beyond the usual when it adopted its object: the
    template's properties overlaid with those observed (those observe cannot read keep the
    template's), and, when they differ from the template's, a definition hash of its own,
    so that the next update converges the object to the template. Empty for any other."""
    adopted = data.get(ADOPT)
    if not isinstance(adopted, Mapping) or "properties" not in adopted:
        return {}
    external_id = str(adopted["id"])
    wanted = dict(recorded.get("properties_data", version.properties) or {})
    real = {**wanted, **dict(adopted["properties"] or {})}
    reason = f"adopted the existing object {external_id} (external_id)"
    fields: dict[str, Any] = {"status_reason": reason}
    if real != wanted:
        fields["properties_data"] = real
        fields["definition_hash"] = _observed_hash(external_id, real)
    return fields


def adoption_refusal(head: ResourceVersion, external_id: str | None) -> str | None:
    """Why the resource cannot converge to a definition naming `external_id`, or None.

    An external_id adopts an object when the resource is created (or its failed create is
    tried again): it cannot be added to a resource that has an object, nor changed to name
    another (Heat refuses both). Removing it keeps the resource as it is."""
    if external_id is None or head.status == Status.IN_PROGRESS:
        return None
    current = current_object(head)
    if current is None or current == external_id:
        return None
    return (
        f"its external_id {external_id!r} is not its object {current!r}: external_id adopts an "
        "object only when the resource is created, and cannot be added or changed later"
    )


def replacement_refusal(external_id: str | None, head: ResourceVersion, why: str) -> str | None:
    """Why a resource that adopted its object cannot be replaced, or None: a replacement
    would delete the adopted object and adopt it again."""
    if external_id is None or current_object(head) is None:
        return None
    return (
        f"it adopted {external_id!r} (external_id), so it cannot be replaced ({why}); remove "
        "external_id to let a new object replace it"
    )


def current_object(head: ResourceVersion) -> str | None:
    """The physical id of the object the resource has, if any."""
    if head.action in (Action.INIT, Action.DELETE):
        return None
    return head.physical_id


def _observed_hash(external_id: str, properties: Mapping[str, Any]) -> str:
    """A definition hash no template's can equal: what was observed, not what was written."""
    canonical = json.dumps(
        {"adopted": external_id, "properties": properties},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
