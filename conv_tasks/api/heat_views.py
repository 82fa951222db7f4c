"""The public tasks' answers in Heat's JSON shapes (heat/rpc/api.py field names).

Pure functions of a task's answer and the request's base URL: stacks, resources, events and
outputs with Heat's keys (`stack_status`, `creation_time`, `links`, `output_key`, ...).
A stack's own events carry the stack's name as `resource_name`, which `--wait` looks for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote


def heat_time(value: Any) -> str | None:
    """Heat's timestamps: ISO 8601 in UTC, to the second, with Z."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.utcoffset() is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _seg(value: Any) -> str:
    return quote(str(value), safe="")


def stack_url(base: str, tenant: str, name: str, stack_id: str) -> str:
    return f"{base.rstrip('/')}/v1/{_seg(tenant)}/stacks/{_seg(name)}/{_seg(stack_id)}"


def _link(href: str, rel: str = "self") -> dict[str, str]:
    return {"href": href, "rel": rel}


def created_stack(base: str, tenant: str, answer: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /stacks`'s answer: the new stack's id and address."""
    href = stack_url(base, tenant, str(answer.get("name", "")), str(answer["stack_id"]))
    return {"stack": {"id": answer["stack_id"], "links": [_link(href)]}}


def stack_summary(base: str, tenant: str, stack: Mapping[str, Any]) -> dict[str, Any]:
    """One stack of a list (Heat's basic keys)."""
    href = stack_url(base, tenant, str(stack["name"]), str(stack["id"]))
    return {
        "id": stack["id"],
        "stack_name": stack["name"],
        "description": stack.get("description", ""),
        "stack_status": stack.get("status"),
        "stack_status_reason": stack.get("status_reason") or "",
        "creation_time": heat_time(stack.get("created_at")),
        "updated_time": heat_time(stack.get("updated_at")),
        "deletion_time": heat_time(stack.get("deleted_at")),
        "stack_owner": None,
        "parent": stack.get("parent_stack_id"),
        "stack_user_project_id": None,
        "tags": list(stack.get("tags") or []) or None,
        "links": [_link(href)],
    }


def output_items(outputs: Mapping[str, Any], *, values: bool = True) -> list[dict[str, Any]]:
    """Outputs as Heat lists them: output_key, description, output_value (and output_error)."""
    shown = []
    for key, output in outputs.items():
        data = output if isinstance(output, Mapping) else {"value": output}
        item: dict[str, Any] = {"output_key": key, "description": data.get("description") or ""}
        if values:
            item["output_value"] = data.get("value")
            if data.get("error"):
                item["output_error"] = data["error"]
        shown.append(item)
    return shown


def stack_detail(base: str, tenant: str, stack: Mapping[str, Any]) -> dict[str, Any]:
    """`GET /stacks/{name}/{id}`: every Heat key of a stack."""
    data = stack_summary(base, tenant, stack)
    parameters = {
        "OS::stack_id": stack["id"],
        "OS::stack_name": stack["name"],
        "OS::project_id": tenant,
        **dict(stack.get("parameters") or {}),
    }
    data.update(
        description=stack.get("description") or "",
        template_description=stack.get("description") or "",
        parameters=parameters,
        outputs=output_items(stack.get("outputs") or {}),
        disable_rollback=bool(stack.get("disable_rollback", True)),
        timeout_mins=stack.get("timeout_mins"),
        capabilities=[],
        notification_topics=[],
    )
    return data


def _required_by(resources: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    needed: dict[str, list[str]] = {}
    for resource in resources:
        for name in resource.get("requires") or ():
            needed.setdefault(str(name), []).append(str(resource["name"]))
    return needed


def resource_item(
    base: str,
    tenant: str,
    stack_name: str,
    stack_id: str,
    resource: Mapping[str, Any],
    required_by: list[str] | None = None,
) -> dict[str, Any]:
    own_name = str(resource.get("stack_name") or stack_name)
    own_id = str(resource.get("stack_id") or stack_id)
    stack_href = stack_url(base, tenant, own_name, own_id)
    data = {
        "resource_name": resource["name"],
        "logical_resource_id": resource["name"],
        "physical_resource_id": resource.get("physical_id") or "",
        "resource_type": resource.get("type"),
        "resource_status": resource.get("status"),
        "resource_status_reason": resource.get("status_reason") or "",
        "creation_time": heat_time(resource.get("created_at") or resource.get("updated_at")),
        "updated_time": heat_time(resource.get("updated_at")),
        "required_by": list(required_by or []),
        "links": [
            _link(f"{stack_href}/resources/{_seg(resource['name'])}"),
            _link(stack_href, "stack"),
        ],
    }
    if resource.get("stack_name") and own_id != stack_id:
        data["stack_name"] = own_name
    return data


def resource_list(
    base: str, tenant: str, stack_name: str, stack_id: str, resources: list[dict[str, Any]]
) -> dict[str, Any]:
    needed = _required_by(resources)
    return {
        "resources": [
            resource_item(base, tenant, stack_name, stack_id, r, needed.get(str(r["name"])))
            for r in resources
        ]
    }


def resource_detail(
    base: str, tenant: str, stack_name: str, stack_id: str, resource: Mapping[str, Any]
) -> dict[str, Any]:
    data = resource_item(base, tenant, stack_name, stack_id, resource)
    data.update(
        attributes=dict(resource.get("attributes") or {}),
        properties=dict(resource.get("properties") or {}),
        description="",
        metadata={},
    )
    return {"resource": data}


def event_item(
    base: str, tenant: str, stack_name: str, stack_id: str, event: Mapping[str, Any]
) -> dict[str, Any]:
    """One event. The stack's own events name the stack as their resource (heatclient's
    `--wait` stops on the stack's event by that name)."""
    own_name = str(event.get("stack_name") or stack_name)
    own_id = str(event.get("stack_id") or stack_id)
    resource = str(event.get("resource_name") or own_name)
    stack_href = stack_url(base, tenant, own_name, own_id)
    resource_href = f"{stack_href}/resources/{_seg(resource)}"
    event_id = str(event["id"])
    data = {
        "id": event_id,
        "event_time": heat_time(event.get("time")),
        "resource_name": resource,
        "logical_resource_id": resource,
        "physical_resource_id": event.get("physical_id") or "",
        "resource_status": event.get("status"),
        "resource_status_reason": event.get("reason") or "",
        "links": [
            _link(f"{resource_href}/events/{_seg(event_id)}"),
            _link(resource_href, "resource"),
            _link(stack_href, "stack"),
        ],
    }
    if own_id != stack_id:
        data["stack_name"] = own_name
    return data


_PREVIEW_GROUPS = {
    "create": "added",
    "delete": "deleted",
    "replace": "replaced",
    "update": "updated",
    "unchanged": "unchanged",
}


def resource_changes(
    tenant: str,
    stack_name: str,
    stack_id: str,
    preview: Mapping[str, Any],
    *,
    show_nested: bool = False,
) -> dict[str, Any]:
    """An update preview as Heat answers it: resources grouped by what would happen. With
    `show_nested` (Heat's query flag), the resources of nested stacks too, each naming its
    parent resource (`parent_resource`) and identified in its own stack."""
    groups: dict[str, list[dict[str, Any]]] = {group: [] for group in _PREVIEW_GROUPS.values()}
    pending = [
        (resource, stack_name, stack_id, None) for resource in preview.get("resources") or ()
    ]
    while pending:
        resource, in_name, in_id, parent = pending.pop(0)
        group = _PREVIEW_GROUPS.get(str(resource.get("action")), "updated")
        item = _resource_change(tenant, in_name, in_id, resource)
        if parent is not None:
            item["parent_resource"] = parent
        groups[group].append(item)
        child = resource.get("nested_stack") or {}
        if show_nested and child:
            pending.extend(
                (inner, str(child.get("name")), str(child.get("id")), resource.get("name"))
                for inner in resource.get("nested") or ()
            )
    return {"resource_changes": groups}


def _resource_change(
    tenant: str, stack_name: str, stack_id: str, resource: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "resource_name": resource.get("name"),
        "resource_type": resource.get("type"),
        "resource_action": str(resource.get("action", "")).upper(),
        "resource_identity": {
            "stack_name": stack_name,
            "stack_id": stack_id,
            "tenant": tenant,
            "path": f"/resources/{resource.get('name')}",
        },
        "reason": resource.get("reason") or "",
        "changes": resource.get("changes") or {},
    }


def previewed_stack(
    base: str, tenant: str, name: str, body: Mapping[str, Any], preview: Mapping[str, Any]
) -> dict[str, Any]:
    """`POST /stacks/preview`: the stack it would make, with its resources."""
    resources = [
        {
            "resource_name": r.get("name"),
            "logical_resource_id": r.get("name"),
            "resource_type": r.get("type"),
            "resource_action": "INIT",
            "resource_status": "COMPLETE",
            "physical_resource_id": "",
            "required_by": [],
        }
        for r in preview.get("resources") or ()
    ]
    return {
        "stack": {
            "id": "None",
            "stack_name": name,
            "description": "",
            "template_description": "",
            "parameters": dict(body.get("parameters") or {}),
            "disable_rollback": bool(body.get("disable_rollback", True)),
            "timeout_mins": body.get("timeout_mins"),
            "links": [_link(stack_url(base, tenant, name, "None"))],
            "resources": resources,
        }
    }


def template_parameters(template: Any) -> dict[str, Any]:
    """What `POST /validate` says of each parameter (Heat's Type, Description, Default,
    Label, NoEcho), from a template given as an object; hidden defaults masked."""
    if not isinstance(template, Mapping) or not isinstance(template.get("parameters"), Mapping):
        return {}
    shown: dict[str, Any] = {}
    for name, spec in template["parameters"].items():
        if not isinstance(spec, Mapping):
            continue
        hidden = spec.get("hidden") is True
        item: dict[str, Any] = {
            "Type": str(spec.get("type", "string")).capitalize()
            if str(spec.get("type", "string")) in ("string", "number", "boolean", "json")
            else "CommaDelimitedList",
            "Description": str(spec.get("description", "")),
            "Label": str(spec.get("label", name)),
            "NoEcho": "true" if hidden else "false",
        }
        if "default" in spec:
            item["Default"] = "******" if hidden else spec["default"]
        shown[str(name)] = item
    return shown


def validated(template: Any, answer: Mapping[str, Any]) -> dict[str, Any]:
    description = template.get("description", "") if isinstance(template, Mapping) else ""
    return {
        "Description": description if isinstance(description, str) else "",
        "Parameters": template_parameters(template),
        "ParameterGroups": [],
        "Warnings": list(answer.get("warnings") or []),
    }
