"""What users read: stacks, resources, events and outputs, as JSON-able dicts.

Hidden parameter values never leave this module: parameters are shown
through public_parameters and every free text goes through the redactor.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from conv_tasks.db import ResourceRow, StackRow, Transaction
from conv_tasks.engine.definition import Redactor, StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.payload import read_stored_output
from conv_tasks.errors import NotFound
from conv_tasks.tags import TagFilter
from conv_tasks.template import ResourceData, public_parameters, without_pseudo


def iso_time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def stack_definition(env: EngineEnv, tx: Transaction, stack: StackRow) -> StackDefinition | None:
    """The definition of the stack's current template (or, while none, its previous one)."""
    template_id = stack.raw_template_id or stack.prev_raw_template_id
    if template_id is None:
        return None
    kept = env.definitions.cached(template_id)
    if kept is not None:
        return kept  # a stored template never changes: no need to read its row again
    try:
        raw = tx.templates.get(template_id)
    except NotFound:
        # The stack's delete completed between our reads and took its templates with it.
        return None
    return env.definitions.of_row(raw)


def redactor_for(definition: StackDefinition | None) -> Redactor:
    return definition.redact if definition is not None else Redactor(())


def stored_outputs(tx: Transaction, stack_id: str) -> dict[str, ResourceData]:
    """What each resource of the stack last handed on (its head version's stored output)."""
    return {
        row.name: read_stored_output(row.attr_data)
        for row in tx.resources.of_stack(stack_id)
        if row.is_head and row.attr_data
    }


def stack_summary(stack: StackRow, redact: Redactor) -> dict[str, Any]:
    return {
        "id": stack.id,
        "name": stack.name,
        "tenant": stack.tenant,
        "action": stack.action,
        "status": stack.state,
        "status_reason": redact(stack.status_reason),
        "created_at": iso_time(stack.created_at),
        "updated_at": iso_time(stack.updated_at),
        "deleted_at": iso_time(stack.deleted_at),
        "tags": list(stack.tags),
        "parent_stack_id": stack.parent_stack_id,
    }


def show_stack(
    env: EngineEnv, tenant: str, ref: str, *, include_deleted: bool = False
) -> dict[str, Any]:
    with env.db.transaction() as tx:
        stack = tx.stacks.find_any(tenant, ref) if include_deleted else tx.stacks.find(tenant, ref)
        definition = stack_definition(env, tx, stack)
        data = stack_summary(stack, redactor_for(definition))
        parent = tx.stacks.get_any(stack.parent_stack_id) if stack.parent_stack_id else None
        data.update(
            disable_rollback=stack.disable_rollback,
            timeout_mins=stack.timeout_mins,
            template_id=stack.raw_template_id,
            previous_template_id=stack.prev_raw_template_id,
            traversal=stack.current_traversal,
            parent_resource=stack.parent_resource,
            parent_stack_name=parent.name if parent is not None else None,
            nested_depth=stack.nested_depth,
        )
        if definition is not None:
            data["description"] = definition.template.description
            # Redacted too: a nested stack's parameter may hold a value its parent hides (a
            # hidden parameter, a handle's token) under a name its own template does not hide.
            # Without the pseudo-parameters: Heat's API view (conv_tasks.api) adds its own.
            shown = public_parameters(definition.template, without_pseudo(definition.parameters))
            data["parameters"] = definition.redact.value(shown)
            data["outputs"] = definition.shown_outputs(stored_outputs(tx, stack.id))
        return data


def list_stacks(
    env: EngineEnv, tenant: str, *, show_nested: bool = False, tag_filter: TagFilter | None = None
) -> list[dict[str, Any]]:
    """The tenant's live stacks; nested stacks (made by a parent's resource) only when asked;
    those `tag_filter` keeps."""
    with env.db.transaction() as tx:
        rows = tx.stacks.of_tenant(tenant, show_nested=show_nested, tag_filter=tag_filter)
    return [stack_summary(s, Redactor(())) for s in rows]


def resource_summary(row: ResourceRow, redact: Redactor) -> dict[str, Any]:
    return {
        "name": row.name,
        "type": row.type,
        "version": row.version,
        "physical_id": row.physical_id,
        "action": row.action,
        "status": row.state,
        "status_reason": redact(row.status_reason),
        "requires": list(row.requires),
        "current": row.is_head,
        "updated_at": iso_time(row.updated_at),
    }


def list_resources(
    env: EngineEnv, tenant: str, ref: str, *, all_versions: bool = False, nested_depth: int = 0
) -> list[dict[str, Any]]:
    """The stack's resources in the order its template names them (those it no longer
    names, still being deleted, after them by name); with nested_depth N, those of its
    nested stacks N levels down too, each naming its stack (`stack_name`, and
    `parent_resource` for a nested one)."""
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, ref)
        result: list[dict[str, Any]] = []
        for one in [stack, *tx.stacks.descendants(stack, nested_depth)]:
            definition = stack_definition(env, tx, one)
            redact = redactor_for(definition)
            written = list(definition.template.resources) if definition is not None else []
            place = {name: n for n, name in enumerate(written)}
            rows = tx.resources.of_stack(one.id)
            for r in sorted(rows, key=lambda r: (place.get(r.name, len(place)), r.name, r.version)):
                if not (all_versions or r.is_head):
                    continue
                shown = resource_summary(r, redact)
                if nested_depth:
                    shown.update(stack_name=one.name, stack_id=one.id)
                result.append(shown)
        return result


def list_events(
    env: EngineEnv,
    tenant: str,
    ref: str,
    *,
    after_id: int = 0,
    latest: int = 0,
    with_deleted: bool = True,
    nested_depth: int = 0,
) -> list[dict[str, Any]]:
    """The stack's events by id; with nested_depth N, those of its nested stacks N levels
    down too (event ids are one sequence, so `after_id` pages them all), each naming its
    stack (`stack_name`). With `latest` n, only the newest n of them (of all those stacks
    together, after `after_id`), still oldest first."""
    with env.db.transaction() as tx:
        stack = tx.stacks.find_any(tenant, ref) if with_deleted else tx.stacks.find(tenant, ref)
        nested = tx.stacks.descendants(stack, nested_depth, with_deleted=with_deleted)
        stacks = {one.id: one for one in [stack, *nested]}
        redactors: dict[str, Redactor] = {}
        shown: list[dict[str, Any]] = []
        for e in tx.events.of_stacks(list(stacks), after_id=after_id, latest=latest):
            one = stacks[e.stack_id]
            if one.id not in redactors:
                redactors[one.id] = (
                    Redactor(()) if one.deleted else redactor_for(stack_definition(env, tx, one))
                )
            event = {
                "id": e.id,
                "resource_name": e.resource_name,
                "physical_id": e.physical_id,
                "action": e.action,
                "status": e.state,
                "reason": redactors[one.id](e.reason or ""),
                "time": iso_time(e.created_at),
            }
            if nested_depth:
                event.update(stack_name=one.name, stack_id=one.id)
            shown.append(event)
        return shown


def stack_outputs(env: EngineEnv, tenant: str, ref: str) -> dict[str, Any]:
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, ref)
        definition = stack_definition(env, tx, stack)
        if definition is None:
            return {}
        return definition.shown_outputs(stored_outputs(tx, stack.id))
