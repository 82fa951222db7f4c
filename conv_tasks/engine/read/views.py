"""What users read: stacks, resources, events and outputs, as JSON-able dicts.

Hidden parameter values never leave this module: parameters are shown
through public_parameters and every free text goes through the redactor.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from conv_tasks.db import events as event_repo
from conv_tasks.db import resources as resource_repo
from conv_tasks.db import stacks as stack_repo
from conv_tasks.db import templates as template_repo
from conv_tasks.db.models import Resource, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.engine.definition.model import StackDefinition, default_definitions
from conv_tasks.engine.definition.redact import Redactor
from conv_tasks.errors import NotFound
from conv_tasks.tags import TagFilter
from conv_tasks.template import ResourceData, public_parameters


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def stack_definition(session: Session, stack: Stack) -> StackDefinition | None:
    template_id = stack.raw_template_id or stack.prev_raw_template_id
    if template_id is None:
        return None
    try:
        raw = template_repo.get_template(session, template_id)
    except NotFound:
        # The stack's delete completed between our reads and took its templates with it.
        return None
    return default_definitions().of_row(raw)


def redactor_for(definition: StackDefinition | None) -> Redactor:
    return definition.redact if definition is not None else Redactor(())


def stack_summary(stack: Stack, redact: Redactor) -> dict[str, Any]:
    return {
        "id": stack.id,
        "name": stack.name,
        "tenant": stack.tenant,
        "action": stack.action,
        "status": f"{stack.action}_{stack.status}",
        "status_reason": redact(stack.status_reason or ""),
        "created_at": _time(stack.created_at),
        "updated_at": _time(stack.updated_at),
        "deleted_at": _time(stack.deleted_at),
        "tags": list(stack.tags or ()),
        "parent_stack_id": stack.parent_stack_id,
    }


def show_stack(tenant: str, ref: str, *, include_deleted: bool = False) -> dict[str, Any]:
    with session_scope() as session:
        if include_deleted:
            stack = stack_repo.find_any(session, tenant, ref)
        else:
            stack = stack_repo.find_stack(session, tenant, ref)
        definition = stack_definition(session, stack)
        data = stack_summary(stack, redactor_for(definition))
        data.update(
            disable_rollback=stack.disable_rollback,
            timeout_mins=stack.timeout_mins,
            template_id=stack.raw_template_id,
            previous_template_id=stack.prev_raw_template_id,
            traversal=stack.current_traversal,
            parent_resource=stack.parent_resource,
            parent_stack_name=_parent_name(session, stack),
            nested_depth=stack.nested_depth,
        )
        if definition is not None:
            data["description"] = definition.template.description
            # Redacted too: a nested stack's parameter may hold a value its parent hides (a
            # hidden parameter, a handle's token) under a name its own template does not hide.
            shown = public_parameters(definition.template, definition.parameters)
            data["parameters"] = definition.redact.value(shown)
            data["outputs"] = _outputs(session, stack, definition)
        return data


def _parent_name(session: Session, stack: Stack) -> str | None:
    if stack.parent_stack_id is None:
        return None
    parent = session.get(Stack, stack.parent_stack_id)
    return parent.name if parent is not None else None


def list_stacks(
    tenant: str, *, show_nested: bool = False, tag_filter: TagFilter | None = None
) -> list[dict[str, Any]]:
    """The tenant's live stacks; nested stacks (made by a parent's resource) only when asked;
    those `tag_filter` keeps."""
    with session_scope() as session:
        rows = stack_repo.list_stacks(
            session, tenant, show_nested=show_nested, tag_filter=tag_filter
        )
        return [stack_summary(s, Redactor(())) for s in rows]


def _resource(row: Resource, redact: Redactor) -> dict[str, Any]:
    return {
        "name": row.name,
        "type": row.type,
        "version": row.version,
        "physical_id": row.physical_id,
        "action": row.action,
        "status": f"{row.action}_{row.status}",
        "status_reason": redact(row.status_reason or ""),
        "requires": list(row.requires or ()),
        "current": row.replaced_by is None,
        "updated_at": _time(row.updated_at),
    }


def list_resources(
    tenant: str, ref: str, *, all_versions: bool = False, nested_depth: int = 0
) -> list[dict[str, Any]]:
    """The stack's resources; with nested_depth N, those of its nested stacks N levels down
    too, each naming its stack (`stack_name`, and `parent_resource` for a nested one)."""
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, ref)
        result: list[dict[str, Any]] = []
        for one in [stack, *stack_repo.descendants(session, stack, nested_depth)]:
            redact = redactor_for(stack_definition(session, one))
            rows = resource_repo.versions(session, one.id)
            for r in sorted(rows, key=lambda r: (r.name, r.version)):
                if not (all_versions or r.replaced_by is None):
                    continue
                shown = _resource(r, redact)
                if nested_depth:
                    shown.update(stack_name=one.name, stack_id=one.id)
                result.append(shown)
        return result


def list_events(
    tenant: str, ref: str, *, after_id: int = 0, with_deleted: bool = True, nested_depth: int = 0
) -> list[dict[str, Any]]:
    """The stack's events by id; with nested_depth N, those of its nested stacks N levels
    down too (event ids are one sequence, so `after_id` pages them all), each naming its
    stack (`stack_name`)."""
    with session_scope() as session:
        stack = (
            stack_repo.find_any(session, tenant, ref)
            if with_deleted
            else stack_repo.find_stack(session, tenant, ref)
        )
        nested = stack_repo.descendants(session, stack, nested_depth, with_deleted=with_deleted)
        shown: list[dict[str, Any]] = []
        for one in [stack, *nested]:
            redact = (
                redactor_for(stack_definition(session, one))
                if one.deleted_at is None
                else Redactor(())
            )
            for e in event_repo.list_events(session, one.id, after_id=after_id):
                event = {
                    "id": e.id,
                    "resource_name": e.resource_name,
                    "physical_id": e.physical_id,
                    "action": e.action,
                    "status": f"{e.action}_{e.status}",
                    "reason": redact(e.reason or ""),
                    "time": _time(e.created_at),
                }
                if nested_depth:
                    event.update(stack_name=one.name, stack_id=one.id)
                shown.append(event)
        return sorted(shown, key=lambda event: event["id"]) if nested else shown


def _outputs(session: Session, stack: Stack, definition: StackDefinition) -> dict[str, Any]:
    inputs: dict[str, ResourceData] = {}
    for row in resource_repo.versions(session, stack.id):
        if row.replaced_by is None and row.attr_data:
            inputs[row.name] = ResourceData(
                row.attr_data.get("ref"), dict(row.attr_data.get("attributes") or {})
            )
    return definition.shown_outputs(inputs)


def stack_outputs(tenant: str, ref: str) -> dict[str, Any]:
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, ref)
        definition = stack_definition(session, stack)
        return {} if definition is None else _outputs(session, stack, definition)
