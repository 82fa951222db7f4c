"""OS::Heat::SoftwareDeploymentGroup, the parts that need no child stack: which member
deployments its `servers` give, and what is wrong with a `servers` map.

Each key of `servers` is one member, an OS::Heat::SoftwareDeployment named by the key,
whose `server` is the key's value; the group's other properties are every member's as
written. Pure: properties in, (name, resource) members out; the child template around them
is the group's (nested.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.sdk import Problem, contains_function, function_call

MEMBER_TYPE = "OS::Heat::SoftwareDeployment"
SERVERS = "servers"
SERVER = "server"
# The group's properties every member gets as written (all but servers).
SHARED = ("config", "input_values", "actions", "name", "signal_transport")


def deployment_members(
    properties: Mapping[str, Any],
) -> tuple[tuple[str, dict[str, Any]], ...]:
    """One member deployment (name, child template resource) per key of servers, in key
    order: comparable with ==, so that only a changed member is updated."""
    servers = properties.get(SERVERS) or {}
    shared = {key: properties[key] for key in SHARED if properties.get(key) is not None}
    return tuple(
        (str(name), {"type": MEMBER_TYPE, "properties": {**shared, SERVER: server}})
        for name, server in servers.items()
    )


def servers_problems(servers: Any, *, path: str) -> list[Problem]:
    """What is wrong with a servers map (path: resources.NAME.properties.servers); values that
    are functions are taken on trust, and a value that is not a map is its schema's to refuse."""
    if not isinstance(servers, Mapping) or function_call(servers) is not None:
        return []
    problems: list[Problem] = []
    for name, server in servers.items():
        where = f"{path}.{name}"
        if not isinstance(name, str) or not name.strip():
            problems.append(Problem(path, f"{name!r} is not a member name: a non-empty string"))
        elif "." in name or "/" in name:
            problems.append(Problem(where, "a member name cannot contain '.' or '/'"))
        if contains_function(server):
            continue
        if not isinstance(server, str) or not server:
            problems.append(
                Problem(where, f"must be a server id (a non-empty string), not {server!r}")
            )
    return problems
