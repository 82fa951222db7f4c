"""The handlers of a tenant's stacks: list, create, preview, find, show, update, delete, act,
their templates, environments, files and outputs, and template validation.

Thin on purpose: the mapping is in heat_input, heat_views and listing (pure, unit-tested);
a handler only strings them together with one or two task calls.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote, urlencode

from conv_tasks.api import heat_input, heat_views, listing
from conv_tasks.api.call import Call, Reply, stack_ref
from conv_tasks.edge import ApiFault, FaultProblem, not_found


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
    answer = await call.task("conv_tasks.stack.show", stack=stack_ref(call), include_deleted=True)
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
    await call.task("conv_tasks.stack.update", stack=stack_ref(call), **request.kwargs)
    return Reply(202)


async def stack_preview_update(call: Call) -> Reply:
    patch = call.param("patch") == "True"
    request = heat_input.preview_request(call.object_body(), patch=patch)
    show_nested = listing.query_flag(call.query, "show_nested")
    answer = await call.task("conv_tasks.stack.preview", stack=stack_ref(call), **request.kwargs)
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
    await call.task("conv_tasks.stack.delete", stack=stack_ref(call))
    return Reply(204)


async def stack_action(call: Call) -> Reply:
    task, kwargs = heat_input.action_request(call.object_body())
    await call.task(task, stack=stack_ref(call), **kwargs)
    return Reply(200)


async def stack_template(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.template", stack=stack_ref(call))
    return Reply(200, answer["template"])


async def stack_environment(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.template", stack=stack_ref(call))
    return Reply(200, answer.get("environment") or {})


async def stack_files(call: Call) -> Reply:
    """The names of the stack's files. The task API keeps their text to the engine, so each
    name maps to null (docs/operations/http-api.md)."""
    answer = await call.task("conv_tasks.stack.template", stack=stack_ref(call))
    return Reply(200, dict.fromkeys(answer.get("files") or []))


async def output_list(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.outputs", stack=stack_ref(call))
    return Reply(200, {"outputs": heat_views.output_items(answer["outputs"], values=False)})


async def output_show(call: Call) -> Reply:
    answer = await call.task("conv_tasks.stack.outputs", stack=stack_ref(call))
    key = call.param("output_key")
    if key not in answer["outputs"]:
        raise not_found(f"The stack has no output {key[:255]!r}.")
    (item,) = heat_views.output_items({key: answer["outputs"][key]})
    return Reply(200, {"output": item})


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
