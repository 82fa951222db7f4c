"""Public stack tasks: stable names, JSON kwargs, JSON results.

Any service can call these with `send_task(name, kwargs={...})` without
importing conv_tasks. A result is a JSON object: {"ok": true, "stack_id":
...} on success, {"ok": false, "error": code, "message": ..., "problems":
[...]} when the request is refused (and then nothing was changed).
"""

from __future__ import annotations

from typing import Any

from conv_tasks import engine
from conv_tasks.engine import ChangeRequest, TenantStacks
from conv_tasks.limits import (
    MAX_ID,
    MAX_LATEST_EVENTS,
    MAX_NESTING_DEPTH,
    MAX_REASON_CHARS,
)
from conv_tasks.requests import (
    TAG_LIST_SCHEMA,
    ApplyRequest,
    DeleteRequest,
    Field,
    Limit,
    NewStackRequest,
    RollbackRequest,
    UpdateRequest,
)
from conv_tasks.tags import TagFilter, tag_problems
from conv_tasks.tasks.public import STACK, TENANT, public_task, request_task
from conv_tasks.tasks.runtime import engine_env

NESTED_DEPTH = Field(
    "nested_depth",
    (int,),
    default=0,
    description="Also include nested stacks this many levels down (0: this stack only).",
    low=0,
    high=Limit(MAX_NESTING_DEPTH, "MAX_NESTING_DEPTH"),
)


def tag_field(name: str, description: str) -> Field:
    return Field(name, (list,), description=description, check=tag_problems, schema=TAG_LIST_SCHEMA)


def _stacks(tenant: str) -> TenantStacks:
    return TenantStacks(engine_env(), tenant)


# Create, apply, update, delete and rollback take the fields their requests declare
# (conv_tasks.requests).
@request_task(NewStackRequest)
def create(tenant: str, request: NewStackRequest) -> dict[str, Any]:
    return _stacks(tenant).create(request).to_json()


@request_task(ApplyRequest)
def apply(tenant: str, request: ApplyRequest) -> dict[str, Any]:
    """Create the stack, update it to the request, or leave it if it is COMPLETE on exactly
    this request: `result` says which (docs/task-api.md, "Apply")."""
    return _stacks(tenant).apply(request).to_json()


@request_task(UpdateRequest)
def update(tenant: str, request: UpdateRequest) -> dict[str, Any]:
    change = ChangeRequest(
        request.template,
        request.parameters,
        request.existing_parameters,
        request.environment,
        request.files,
    )
    result = _stacks(tenant).update(
        request.stack,
        change,
        disable_rollback=request.disable_rollback,
        timeout_mins=request.timeout_mins,
        tags=None if request.tags is None else tuple(request.tags),
    )
    return result.to_json()


@request_task(DeleteRequest)
def delete(tenant: str, request: DeleteRequest) -> dict[str, Any]:
    return _stacks(tenant).delete(request.stack, retain=request.retain).to_json()


@request_task(RollbackRequest)
def rollback(tenant: str, request: RollbackRequest) -> dict[str, Any]:
    return _stacks(tenant).rollback(request.stack, skip=request.skip).to_json()


@public_task(
    "conv_tasks.stack.cancel_update", [TENANT, STACK, Field("rollback", (bool,), default=True)]
)
def cancel_update(tenant: str, stack: str, rollback: bool) -> dict[str, Any]:
    return _stacks(tenant).cancel(stack, rollback=rollback).to_json()


@public_task("conv_tasks.stack.check", [TENANT, STACK])
def check(tenant: str, stack: str) -> dict[str, Any]:
    return _stacks(tenant).check(stack).to_json()


@public_task("conv_tasks.stack.suspend", [TENANT, STACK])
def suspend(tenant: str, stack: str) -> dict[str, Any]:
    return _stacks(tenant).suspend(stack).to_json()


@public_task("conv_tasks.stack.resume", [TENANT, STACK])
def resume(tenant: str, stack: str) -> dict[str, Any]:
    return _stacks(tenant).resume(stack).to_json()


@public_task(
    "conv_tasks.resource.mark_unhealthy",
    [
        TENANT,
        STACK,
        Field("resource", (str,), required=True, is_name=True),
        Field("reason", (str,), max_bytes=Limit(MAX_REASON_CHARS, "MAX_REASON_CHARS")),
        # True (Heat's mark_unhealthy: false): a CHECK_FAILED resource is CHECK_COMPLETE again.
        Field("reset", (bool,), default=False),
    ],
)
def mark_unhealthy(
    tenant: str, stack: str, resource: str, reason: str | None, reset: bool
) -> dict[str, Any]:
    return _stacks(tenant).mark_unhealthy(stack, resource, reason, reset=reset).to_json()


@public_task(
    "conv_tasks.stack.show",
    [TENANT, STACK, Field("include_deleted", (bool,), default=False)],
    reads=True,
)
def show(tenant: str, stack: str, include_deleted: bool) -> dict[str, Any]:
    data = engine.show_stack(engine_env(), tenant, stack, include_deleted=include_deleted)
    return {"stack_id": data["id"], "stack": data}


@public_task(
    "conv_tasks.stack.list",
    [
        TENANT,
        Field(
            "show_nested",
            (bool,),
            default=False,
            description="Also list nested stacks (those a parent stack's resource made).",
        ),
        tag_field("tags", "Only stacks that have every one of these tags."),
        tag_field("tags_any", "Only stacks that have at least one of these tags."),
        tag_field("not_tags", "Only stacks that lack at least one of these tags."),
        tag_field("not_tags_any", "Only stacks that have none of these tags."),
    ],
    reads=True,
)
def list_(tenant: str, show_nested: bool, **filters: list[str] | None) -> dict[str, Any]:
    return {
        "stacks": engine.list_stacks(
            engine_env(), tenant, show_nested=show_nested, tag_filter=TagFilter.build(**filters)
        )
    }


@public_task(
    "conv_tasks.stack.resources",
    [TENANT, STACK, Field("all_versions", (bool,), default=False), NESTED_DEPTH],
    reads=True,
)
def resources(tenant: str, stack: str, all_versions: bool, nested_depth: int) -> dict[str, Any]:
    found = engine.list_resources(
        engine_env(), tenant, stack, all_versions=all_versions, nested_depth=nested_depth
    )
    return {"resources": found}


@public_task(
    "conv_tasks.stack.events",
    [
        TENANT,
        STACK,
        Field(
            "after_id",
            (int,),
            default=0,
            description="Only the events after this id (0: from the first).",
            low=0,
            high=Limit(MAX_ID, "MAX_ID"),
        ),
        Field(
            "latest",
            (int,),
            default=0,
            description="Only the newest this many of them, still oldest first (0: all).",
            low=0,
            high=Limit(MAX_LATEST_EVENTS, "MAX_LATEST_EVENTS"),
        ),
        NESTED_DEPTH,
    ],
    reads=True,
)
def events(
    tenant: str, stack: str, after_id: int, latest: int, nested_depth: int
) -> dict[str, Any]:
    return {
        "events": engine.list_events(
            engine_env(),
            tenant,
            stack,
            after_id=after_id,
            latest=latest,
            nested_depth=nested_depth,
        )
    }


@public_task("conv_tasks.stack.outputs", [TENANT, STACK], reads=True)
def outputs(tenant: str, stack: str) -> dict[str, Any]:
    return {"outputs": engine.stack_outputs(engine_env(), tenant, stack)}


@public_task("conv_tasks.stack.template", [TENANT, STACK], reads=True)
def template(tenant: str, stack: str) -> dict[str, Any]:
    return engine.show_template(engine_env(), tenant, stack)


@public_task(
    "conv_tasks.resource.show",
    [TENANT, STACK, Field("resource", (str,), required=True, is_name=True)],
    reads=True,
)
def resource_show(tenant: str, stack: str, resource: str) -> dict[str, Any]:
    return {"resource": engine.show_resource(engine_env(), tenant, stack, resource)}


@public_task(
    "conv_tasks.resource.signal",
    [
        TENANT,
        STACK,
        Field("resource", (str,), required=True, is_name=True),
        Field("details", (dict,), default={}),
    ],
)
def signal(tenant: str, stack: str, resource: str, details: dict[str, Any]) -> dict[str, Any]:
    return engine.signal_resource(engine_env(), tenant, stack, resource, details)
