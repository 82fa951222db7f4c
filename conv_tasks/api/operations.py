"""Which Heat operation a request is: its method and path, decided without I/O.

`route(method, path)` names the operation and its path parameters, or raises the fault a
request for anything else gets: 404 outside `/v1/{tenant_id}`, 405 for a method an address
does not take, and 501 naming the Heat operation conv_tasks does not implement.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conv_tasks.edge import ApiFault, not_implemented

# What may follow `/stacks/{stack_name}/{stack_id}/`: these words after a bare stack name
# are a lookup (a redirect to the stack's address), never a stack id.
STACK_SUBPATHS = frozenset(
    {
        "resources",
        "events",
        "outputs",
        "template",
        "environment",
        "files",
        "preview",
        "actions",
        "snapshots",
        "abandon",
        "export",
    }
)

# Heat operations conv_tasks does not implement, by their path's shape, for the 501 message.
_UNSUPPORTED = {
    "stacks/detail": "stack detail listing",
    "snapshots": "stack snapshots",
    "abandon": "stack abandon",
    "export": "stack export",
    "metadata": "resource metadata",
    "software_configs": "software configs",
    "software_deployments": "software deployments (the agent API is conv_tasks' own)",
    "build_info": "build info",
    "template_versions": "template versions",
    "services": "service listing",
    "resource_types/template": "resource type templates other than HOT",
}


@dataclass(frozen=True)
class Operation:
    """One request's operation (`stack_show`, ...) and its path parameters."""

    name: str
    tenant: str = ""
    params: dict[str, str] = field(default_factory=dict)


def _allow(method: str, allowed: tuple[str, ...], what: str) -> None:
    if method not in allowed:
        raise ApiFault(
            405,
            "HTTPMethodNotAllowed",
            f"{what} takes {', '.join(allowed)}, not {method}.",
            headers={"Allow": ", ".join(allowed)},
        )


def _unsupported(method: str, path: str, what: str) -> ApiFault:
    return not_implemented(f"{what} ({method} {path})")


def _unknown_or_unsupported(method: str, path: str, word: str) -> ApiFault:
    """501 for a Heat operation conv_tasks does not implement; 404 for what Heat has not."""
    if word in _UNSUPPORTED:
        return _unsupported(method, path, _UNSUPPORTED[word])
    return ApiFault(404, "NotFound", f"Heat's API has no {word[:100]!r} at {path[:300]}.")


def route(method: str, path: str) -> Operation:
    """The operation `method path` asks for; raises ApiFault for any other request."""
    method = method.upper()
    segments = path.split("/")[1:] if path.startswith("/") else path.split("/")
    if segments and segments[-1] == "":
        segments = segments[:-1]
    if not segments or segments == ["v1"]:
        _allow(method, ("GET",), "The versions document")
        return Operation("versions")
    if segments == ["healthcheck"]:
        _allow(method, ("GET", "HEAD"), "The health check")
        return Operation("health")
    if segments[0] in HOST_PREFIXES and "" not in segments:
        return _host_route(method, path, segments)
    if segments[0] != "v1" or len(segments) < 3 or "" in segments:
        raise ApiFault(404, "NotFound", f"There is nothing at {path}: Heat's API is under /v1/.")
    tenant, rest = segments[1], segments[2:]
    return _tenant_route(method, path, tenant, rest)


# Addresses servers call with their own credential (a handle's token, a server's credential)
# instead of a tenant's: conv_tasks' own, not Heat's; no tenant in them.
HOST_PREFIXES = frozenset({"signal", "agent"})


def _host_route(method: str, path: str, segments: list[str]) -> Operation:
    match segments:
        case ["signal", "v1", "wait_condition_handles", handle]:
            _allow(method, ("POST",), "A wait condition handle's signal")
            return Operation("handle_signal", params={"handle": handle})
        case ["agent", "v1", "servers", server, "deployments"]:
            _allow(method, ("GET",), "A server's deployments")
            return Operation("agent_metadata", params={"server": server})
        case ["agent", "v1", "deployments", deployment, "signal"]:
            _allow(method, ("POST",), "A deployment's signal")
            return Operation("agent_signal", params={"deployment": deployment})
    raise ApiFault(404, "NotFound", f"There is nothing at {path[:300]}.")


def _tenant_route(method: str, path: str, tenant: str, rest: list[str]) -> Operation:
    head = rest[0]
    if head == "stacks":
        return _stacks_route(method, path, tenant, rest[1:])
    if head == "validate" and len(rest) == 1:
        _allow(method, ("POST",), "Template validation")
        return Operation("template_validate", tenant)
    if head == "resource_types":
        if len(rest) == 1:
            _allow(method, ("GET",), "The resource type list")
            return Operation("resource_type_list", tenant)
        if len(rest) == 2:
            _allow(method, ("GET",), "A resource type")
            return Operation("resource_type_show", tenant, {"type_name": rest[1]})
        if len(rest) == 3 and rest[2] == "template":
            _allow(method, ("GET",), "A resource type's template")
            return Operation("resource_type_template", tenant, {"type_name": rest[1]})
    raise _unknown_or_unsupported(method, path, head)


def _stacks_route(method: str, path: str, tenant: str, rest: list[str]) -> Operation:
    if not rest:
        _allow(method, ("GET", "POST"), "The stack collection")
        return Operation("stack_list" if method == "GET" else "stack_create", tenant)
    if rest == ["preview"]:
        _allow(method, ("POST",), "Stack preview")
        return Operation("stack_preview", tenant)
    if rest == ["detail"]:
        raise _unsupported(method, path, _UNSUPPORTED["stacks/detail"])
    name = rest[0]
    if len(rest) == 1:
        _allow(method, ("GET", "POST", "PUT", "PATCH", "DELETE"), "A stack looked up by name")
        return Operation("stack_lookup", tenant, {"stack_name": name, "subpath": ""})
    if rest[1] in STACK_SUBPATHS:
        # `/stacks/{name}/resources/...`: the stack's address is not known yet.
        return Operation(
            "stack_lookup", tenant, {"stack_name": name, "subpath": "/".join(rest[1:])}
        )
    params = {"stack_name": name, "stack_id": rest[1]}
    tail = rest[2:]
    if not tail:
        _allow(method, ("GET", "PUT", "PATCH", "DELETE"), "A stack")
        names = {"GET": "stack_show", "PUT": "stack_update", "PATCH": "stack_patch"}
        return Operation(names.get(method, "stack_delete"), tenant, params)
    return _stack_part_route(method, path, tenant, params, tail)


def _stack_part_route(
    method: str, path: str, tenant: str, params: dict[str, str], tail: list[str]
) -> Operation:
    part = tail[0]
    if len(tail) == 1 and part in ("template", "environment", "files"):
        _allow(method, ("GET",), f"A stack's {part}")
        return Operation(f"stack_{part}", tenant, params)
    if len(tail) == 1 and part == "preview":
        _allow(method, ("PUT", "PATCH"), "An update preview")
        return Operation(
            "stack_preview_update", tenant, {**params, "patch": str(method == "PATCH")}
        )
    if len(tail) == 1 and part == "actions":
        _allow(method, ("POST",), "A stack's actions")
        return Operation("stack_action", tenant, params)
    if part == "outputs" and len(tail) <= 2:
        _allow(method, ("GET",), "A stack's outputs")
        if len(tail) == 1:
            return Operation("output_list", tenant, params)
        return Operation("output_show", tenant, {**params, "output_key": tail[1]})
    if part == "events" and len(tail) == 1:
        _allow(method, ("GET",), "A stack's events")
        return Operation("event_list", tenant, params)
    if part == "resources":
        return _resource_route(method, path, tenant, params, tail[1:])
    raise _unknown_or_unsupported(method, path, part)


def _resource_route(
    method: str, path: str, tenant: str, params: dict[str, str], tail: list[str]
) -> Operation:
    if not tail:
        _allow(method, ("GET",), "A stack's resources")
        return Operation("resource_list", tenant, params)
    params = {**params, "resource_name": tail[0]}
    if len(tail) == 1:
        _allow(method, ("GET", "PATCH"), "A resource")
        name = "resource_show" if method == "GET" else "resource_mark_unhealthy"
        return Operation(name, tenant, params)
    if len(tail) == 2 and tail[1] == "signal":
        _allow(method, ("POST",), "A resource's signal")
        return Operation("resource_signal", tenant, params)
    if tail[1] == "events" and len(tail) <= 3:
        _allow(method, ("GET",), "A resource's events")
        if len(tail) == 2:
            return Operation("event_list", tenant, params)
        return Operation("event_show", tenant, {**params, "event_id": tail[2]})
    raise _unknown_or_unsupported(method, path, tail[1])
