"""The handlers of a stack's resources and events (list, show, mark unhealthy, signal), and of
the resource types this conv_tasks offers (read in the edge's own process).

Thin on purpose, as the stack handlers: the mapping is in heat_input, heat_views and listing.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.api import heat_input, heat_views, listing
from conv_tasks.api.call import Call, Reply, stack_ref
from conv_tasks.api.json_body import check_content_type, parse_json
from conv_tasks.edge import not_found, not_implemented


def _named_events(
    events: list[dict[str, Any]], stack_name: str, stack_id: str
) -> list[dict[str, Any]]:
    """The stack's own events (no resource) as Heat writes them: the stack's name as the
    resource, its id as the physical id (heatclient's `--wait` checks both)."""
    return [
        e
        if e.get("resource_name")
        else {
            **e,
            "resource_name": e.get("stack_name") or stack_name,
            "physical_id": e.get("stack_id") or stack_id,
        }
        for e in events
    ]


async def _events(call: Call, resource_name: str | None) -> list[dict[str, Any]]:
    wanted = listing.event_query(call.query, resource_name)
    kwargs: dict[str, Any] = {}
    if wanted.nested_depth:
        kwargs["nested_depth"] = wanted.nested_depth
    answer = await call.task("conv_tasks.stack.events", stack=stack_ref(call), **kwargs)
    events = _named_events(list(answer["events"]), call.param("stack_name"), call.param("stack_id"))
    return listing.pick_events(events, wanted)


def _event_items(call: Call, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        heat_views.event_item(
            call.base_url, call.tenant, call.param("stack_name"), call.param("stack_id"), e
        )
        for e in events
    ]


async def event_list(call: Call) -> Reply:
    resource = call.operation.params.get("resource_name")
    events = await _events(call, resource)
    if resource is not None and not events and not call.query.get("marker"):
        raise not_found(f"No events found for resource {resource[:255]!r}.")
    return Reply(200, {"events": _event_items(call, events)})


async def event_show(call: Call) -> Reply:
    resource = call.param("resource_name")
    answer = await call.task("conv_tasks.stack.events", stack=stack_ref(call))
    events = _named_events(list(answer["events"]), call.param("stack_name"), call.param("stack_id"))
    wanted = call.param("event_id")
    found = [e for e in events if str(e["id"]) == wanted and e["resource_name"] == resource]
    if not found:
        raise not_found(f"No event {wanted[:80]!r} found for resource {resource[:255]!r}.")
    return Reply(200, {"event": _event_items(call, found)[0]})


async def resource_list(call: Call) -> Reply:
    raw_depth = (call.query.get("nested_depth") or ["0"])[-1]
    if not raw_depth.isdigit() or len(raw_depth) > 3:
        raise heat_input.bad_request("nested_depth must be a whole number from 0.", "nested_depth")
    kwargs: dict[str, Any] = {}
    if int(raw_depth):
        kwargs["nested_depth"] = int(raw_depth)
    answer = await call.task("conv_tasks.stack.resources", stack=stack_ref(call), **kwargs)
    return Reply(
        200,
        heat_views.resource_list(
            call.base_url,
            call.tenant,
            call.param("stack_name"),
            call.param("stack_id"),
            list(answer["resources"]),
        ),
    )


async def resource_show(call: Call) -> Reply:
    answer = await call.task(
        "conv_tasks.resource.show", stack=stack_ref(call), resource=call.param("resource_name")
    )
    return Reply(
        200,
        heat_views.resource_detail(
            call.base_url,
            call.tenant,
            call.param("stack_name"),
            call.param("stack_id"),
            answer["resource"],
        ),
    )


async def resource_mark_unhealthy(call: Call) -> Reply:
    kwargs = heat_input.mark_unhealthy_request(call.object_body())
    await call.task(
        "conv_tasks.resource.mark_unhealthy",
        stack=stack_ref(call),
        resource=call.param("resource_name"),
        **kwargs,
    )
    return Reply(200)


async def resource_signal(call: Call) -> Reply:
    check_content_type(call.content_type, call.body)
    details = heat_input.signal_details(parse_json(call.body) if call.body.strip() else {})
    await call.task(
        "conv_tasks.resource.signal",
        stack=stack_ref(call),
        resource=call.param("resource_name"),
        details=details,
    )
    return Reply(200)


async def resource_type_list(call: Call) -> Reply:
    from conv_tasks.api.resource_types import type_list

    return Reply(200, await call.gateway.run(lambda: type_list(call.query)))


async def resource_type_show(call: Call) -> Reply:
    from conv_tasks.api.resource_types import type_show

    return Reply(200, await call.gateway.run(lambda: type_show(call.param("type_name"))))


async def resource_type_template(call: Call) -> Reply:
    from conv_tasks.api.resource_types import type_template

    kind = (call.query.get("template_type") or ["hot"])[-1].lower()
    if kind != "hot":
        raise not_implemented(f"resource type templates of type {kind[:20]!r} (only hot)")
    return Reply(200, await call.gateway.run(lambda: type_template(call.param("type_name"))))
