"""One function per Heat operation: read the request, call a task, shape the answer.

Thin on purpose: the mapping is in heat_input, heat_views and listing (pure, unit-tested);
here a handler only strings them together with one or two task calls.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from conv_tasks.api import heat_input, heat_views, listing
from conv_tasks.api.json_body import check_content_type, parse_json, parse_object
from conv_tasks.api.operations import Operation
from conv_tasks.edge import (
    ApiFault,
    FaultProblem,
    TaskGateway,
    bad_request,
    fault_of_answer,
    not_found,
    not_implemented,
)
from conv_tasks.errors import ConvTasksError


@dataclass(frozen=True)
class Call:
    """What a handler gets: the operation, who asks, and the request's parts."""

    operation: Operation
    gateway: TaskGateway
    base_url: str
    path: str
    query: Mapping[str, Sequence[str]]
    body: bytes = b""
    content_type: str | None = None
    # X-Auth-Token, for the addresses servers call with their own credential (never logged).
    auth_token: str | None = field(default=None, repr=False)

    @property
    def tenant(self) -> str:
        return self.operation.tenant

    def param(self, name: str) -> str:
        return self.operation.params[name]

    def object_body(self, *, required: bool = True) -> dict[str, Any]:
        check_content_type(self.content_type, self.body)
        return parse_object(self.body, required=required)

    async def task(self, task: str, **kwargs: Any) -> dict[str, Any]:
        """The task's answer when it is `ok`; raises its fault otherwise."""
        answer = await self.gateway.call(self.tenant, task, **kwargs)
        if not answer.get("ok"):
            raise AnswerFault(answer)
        return answer


class AnswerFault(ConvTasksError):
    """A task refused the request: its answer becomes Heat's fault body."""

    code = "task_refusal"

    def __init__(self, answer: Mapping[str, Any]) -> None:
        super().__init__(str(answer.get("message", "")))
        self.fault = fault_of_answer(answer)


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Call], Awaitable[Reply]]


def _stack_ref(call: Call) -> str:
    return call.param("stack_id")


async def versions(call: Call) -> Reply:
    href = f"{call.base_url.rstrip('/')}/v1/"
    body = {
        "versions": [{"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": href}]}]
    }
    return Reply(300, body)


async def health(call: Call) -> Reply:
    return Reply(200, {"status": "ok"})


async def stack_list(call: Call) -> Reply:
    heat_input.check_no_refused_query({k: v[-1] for k, v in call.query.items() if v})
    wanted = listing.stack_list_query(call.query)
    answer = await call.task("conv_tasks.stack.list", **wanted.task_kwargs)
    page, count = listing.pick_stacks(list(answer["stacks"]), wanted)
    body: dict[str, Any] = {
        "stacks": [heat_views.stack_summary(call.base_url, call.tenant, s) for s in page]
    }
    links = listing.next_link(call.base_url.rstrip("/") + call.path, call.query, page, wanted.limit)
    if links:
        body["links"] = links
    if wanted.with_count:
        body["count"] = count
    return Reply(200, body)


async def stack_create(call: Call) -> Reply:
    request = heat_input.create_request(call.object_body())
    answer = await call.task("conv_tasks.stack.create", **request.kwargs)
    body = heat_views.created_stack(call.base_url, call.tenant, answer)
    return Reply(201, body, {"Location": body["stack"]["links"][0]["href"]})


async def stack_preview(call: Call) -> Reply:
    body = call.object_body()
    name, request = heat_input.create_preview_request(body)
    answer = await call.task("conv_tasks.stack.preview", stack=name, **request.kwargs)
    if answer.get("exists"):
        raise ApiFault(409, "StackExists", f"The stack {name[:255]!r} already exists.")
    return Reply(200, heat_views.previewed_stack(call.base_url, call.tenant, name, body, answer))


def _looks_like_an_id(ref: str) -> bool:
    try:
        uuid.UUID(ref)
    except ValueError:
        return False
    return True


async def stack_lookup(call: Call) -> Reply:
    """Heat's lookup: a stack named without its id is redirected to its address. Looked up by
    its id, a deleted stack is found too (as Heat's identify_stack does), so that a client
    following a delete by id (`openstack stack delete --wait`) reads its last events."""
    ref = call.param("stack_name")
    deleted = True if _looks_like_an_id(ref) else None
    answer = await call.task("conv_tasks.stack.show", stack=ref, include_deleted=deleted)
    stack = answer["stack"]
    location = heat_views.stack_url(call.base_url, call.tenant, stack["name"], stack["id"])
    subpath = call.param("subpath")
    if subpath:
        location += "/" + "/".join(quote(part, safe="") for part in subpath.split("/"))
    params = [(k, v) for k, values in call.query.items() for v in values]
    if params:
        location += "?" + urlencode(params)
    return Reply(302, None, {"Location": location})


async def _shown_stack(call: Call) -> dict[str, Any]:
    # By its whole address, a deleted stack shows (DELETE_COMPLETE), as in Heat.
    answer = await call.task("conv_tasks.stack.show", stack=_stack_ref(call), include_deleted=True)
    stack: dict[str, Any] = answer["stack"]
    if stack["name"] != call.param("stack_name"):
        raise not_found(
            f"The stack {call.param('stack_name')[:255]!r} with the id "
            f"{call.param('stack_id')[:80]!r} was not found."
        )
    return stack


async def stack_show(call: Call) -> Reply:
    stack = await _shown_stack(call)
    return Reply(200, {"stack": heat_views.stack_detail(call.base_url, call.tenant, stack)})


async def stack_update(call: Call) -> Reply:
    return await _update(call, patch=False)


async def stack_patch(call: Call) -> Reply:
    return await _update(call, patch=True)


async def _update(call: Call, *, patch: bool) -> Reply:
    request = heat_input.update_request(call.object_body(), patch=patch)
    await call.task("conv_tasks.stack.update", stack=_stack_ref(call), **request.kwargs)
    return Reply(202)


async def stack_preview_update(call: Call) -> Reply:
    patch = call.param("patch") == "True"
    request = heat_input.preview_request(call.object_body(), patch=patch)
    show_nested = listing.query_flag(call.query, "show_nested")
    answer = await call.task("conv_tasks.stack.preview", stack=_stack_ref(call), **request.kwargs)
    return Reply(
        200,
        heat_views.resource_changes(
            call.tenant,
            call.param("stack_name"),
            call.param("stack_id"),
            answer,
            show_nested=show_nested,
        ),
    )


async def stack_delete(call: Call) -> Reply:
    await call.task("conv_tasks.stack.delete", stack=_stack_ref(call))
    return Reply(204)


async def stack_action(call: Call) -> Reply:
    task, kwargs = heat_input.action_request(call.object_body())
    await call.task(task, stack=_stack_ref(call), **kwargs)
    return Reply(200)


async def stack_template(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.template", stack=_stack_ref(call))
    return Reply(200, answer["template"])


async def stack_environment(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.template", stack=_stack_ref(call))
    return Reply(200, answer.get("environment") or {})


async def stack_files(call: Call) -> Reply:
    """The names of the stack's files. The task API keeps their text to the engine, so each
    name maps to null (docs/operations/http-api.md)."""
    answer = await call.task("conv_tasks.stack.template", stack=_stack_ref(call))
    return Reply(200, dict.fromkeys(answer.get("files") or []))


async def output_list(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.outputs", stack=_stack_ref(call))
    return Reply(200, {"outputs": heat_views.output_items(answer["outputs"], values=False)})


async def output_show(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.outputs", stack=_stack_ref(call))
    key = call.param("output_key")
    if key not in answer["outputs"]:
        raise not_found(f"The stack has no output {key[:255]!r}.")
    (item,) = heat_views.output_items({key: answer["outputs"][key]})
    return Reply(200, {"output": item})


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
    answer = await call.task("conv_tasks.stack.events", stack=_stack_ref(call), **kwargs)
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
    answer = await call.task("conv_tasks.stack.events", stack=_stack_ref(call))
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
    answer = await call.task("conv_tasks.stack.resources", stack=_stack_ref(call), **kwargs)
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
        "conv_tasks.resource.show", stack=_stack_ref(call), resource=call.param("resource_name")
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
        stack=_stack_ref(call),
        resource=call.param("resource_name"),
        **kwargs,
    )
    return Reply(200)


async def resource_signal(call: Call) -> Reply:
    check_content_type(call.content_type, call.body)
    details = heat_input.signal_details(parse_json(call.body) if call.body.strip() else {})
    await call.task(
        "conv_tasks.resource.signal",
        stack=_stack_ref(call),
        resource=call.param("resource_name"),
        details=details,
    )
    return Reply(200)


async def template_validate(call: Call) -> Reply:
    kwargs = heat_input.validate_request(call.object_body())
    answer = await call.task("conv_tasks.template.validate", **kwargs)
    if not answer.get("valid", False):
        errors = answer.get("errors") or []
        first = errors[0] if errors else {}
        where = str(first.get("path") or "")
        message = str(first.get("message") or "The template is not valid.")
        raise ApiFault(
            400,
            "StackValidationFailed",
            f"Invalid template: {where + ': ' if where else ''}{message}",
            [
                FaultProblem(str(e.get("path") or ""), str(e.get("message") or ""))
                for e in errors[:20]
            ],
        )
    return Reply(200, heat_views.validated(kwargs["template"], answer))


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


def _host_credential(call: Call, whose: str) -> str:
    token = (call.auth_token or "").strip()
    if not token:
        raise ApiFault(401, "HTTPUnauthorized", f"This address needs {whose} in X-Auth-Token.")
    return token


async def _as_host(call: Call, work: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    answer = await call.gateway.as_host(work)
    if not answer.get("ok"):
        raise AnswerFault(answer)
    return answer


async def handle_signal(call: Call) -> Reply:
    """A host signals a wait condition handle with its token (Heat's curl_cli)."""
    token = _host_credential(call, "the handle's token")
    check_content_type(call.content_type, call.body)
    details = parse_object(call.body, required=False)
    handle = call.param("handle")
    answer = await _as_host(call, lambda c: c.signal_wait_condition(handle, token, details))
    return Reply(200, answer)


async def agent_metadata(call: Call) -> Reply:
    """The reference agent reads its server's deployments with the server's credential."""
    credential = _host_credential(call, "the server's credential")
    server = call.param("server")
    return Reply(200, await _as_host(call, lambda c: c.deployment_metadata(server, credential)))


async def agent_signal(call: Call) -> Reply:
    """The reference agent reports on a deployment with the server's credential."""
    credential = _host_credential(call, "the server's credential")
    body = call.object_body()
    unknown = sorted(set(body) - {"action", "details"})
    if unknown:
        raise bad_request(f"unknown fields: {', '.join(unknown)}", unknown[0])
    action, details = body.get("action"), body.get("details", {})
    if not isinstance(action, str) or not isinstance(details, dict):
        raise bad_request("action must be a string and details an object", "action")
    deployment = call.param("deployment")
    answer = await _as_host(
        call, lambda c: c.signal_deployment(deployment, credential, action, details)
    )
    return Reply(200, answer)


HANDLERS: dict[str, Handler] = {
    "versions": versions,
    "health": health,
    "stack_list": stack_list,
    "stack_create": stack_create,
    "stack_preview": stack_preview,
    "stack_lookup": stack_lookup,
    "stack_show": stack_show,
    "stack_update": stack_update,
    "stack_patch": stack_patch,
    "stack_preview_update": stack_preview_update,
    "stack_delete": stack_delete,
    "stack_action": stack_action,
    "stack_template": stack_template,
    "stack_environment": stack_environment,
    "stack_files": stack_files,
    "output_list": output_list,
    "output_show": output_show,
    "event_list": event_list,
    "event_show": event_show,
    "resource_list": resource_list,
    "resource_show": resource_show,
    "resource_mark_unhealthy": resource_mark_unhealthy,
    "resource_signal": resource_signal,
    "template_validate": template_validate,
    "resource_type_list": resource_type_list,
    "resource_type_show": resource_type_show,
    "resource_type_template": resource_type_template,
    "handle_signal": handle_signal,
    "agent_metadata": agent_metadata,
    "agent_signal": agent_signal,
}
