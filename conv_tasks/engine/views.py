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
from conv_tasks.engine.definition import StackDefinition, default_definitions
from conv_tasks.engine.redact import Redactor
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
    return default_definitions().of(raw.id, raw.template, raw.parameters)


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
        )
        if definition is not None:
            data["description"] = definition.template.description
            data["parameters"] = public_parameters(definition.template, definition.parameters)
            data["outputs"] = _outputs(session, stack, definition)
        return data


def list_stacks(tenant: str, tag_filter: TagFilter | None = None) -> list[dict[str, Any]]:
    with session_scope() as session:
        rows = stack_repo.list_stacks(session, tenant, tag_filter=tag_filter)
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


def list_resources(tenant: str, ref: str, *, all_versions: bool = False) -> list[dict[str, Any]]:
    with session_scope() as session:
        stack = stack_repo.find_stack(session, tenant, ref)
        redact = redactor_for(stack_definition(session, stack))
        rows = resource_repo.versions(session, stack.id)
        return [
            _resource(r, redact)
            for r in sorted(rows, key=lambda r: (r.name, r.version))
            if all_versions or r.replaced_by is None
        ]


def list_events(
    tenant: str, ref: str, *, after_id: int = 0, with_deleted: bool = True
) -> list[dict[str, Any]]:
    with session_scope() as session:
        stack = (
            stack_repo.find_any(session, tenant, ref)
            if with_deleted
            else stack_repo.find_stack(session, tenant, ref)
        )
        redact = (
            redactor_for(stack_definition(session, stack))
            if stack.deleted_at is None
            else Redactor(())
        )
        return [
            {
                "id": e.id,
                "resource_name": e.resource_name,
                "physical_id": e.physical_id,
                "action": e.action,
                "status": f"{e.action}_{e.status}",
                "reason": redact(e.reason or ""),
                "time": _time(e.created_at),
            }
            for e in event_repo.list_events(session, stack.id, after_id=after_id)
        ]


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
