"""Which connections a stack's resources name, checked when its template is loaded.

A resource whose type acts through a connection names it in its `connection` property.
A name the tenant does not have, or a connection of another kind, refuses the template,
naming the resource and the connection; a type whose `connection` is optional may name
none (it then uses the engine's own). The name is known when the template is loaded if
it is written out or comes from a parameter (`get_param`); one computed from another
resource's attributes is checked when the action runs. Reads no database: the tenant's
connections are handed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import ConvTasksError, Problem, TemplateError
from conv_tasks.resources import Registry


class ConnectionLookup(Protocol):
    def problem(self, tenant: str | None, name: object, kind: str) -> str | None:
        """Why `name` is not a connection of `kind` the tenant has; None if it is."""


_UNKNOWN = object()


def connection_problems(
    definition: StackDefinition,
    tenant: str | None,
    connections: ConnectionLookup,
    registry: Registry,
) -> list[Problem]:
    """Every resource of the definition that names a connection its tenant cannot use."""
    problems: list[Problem] = []
    for name, snippet in definition.template.resources.items():
        try:
            plugin = definition.plugin_type(snippet.type, registry)
        except ConvTasksError:  # an unknown type is the definition's own problem, reported there
            continue
        kind = plugin.connection_kind
        if kind is None:
            continue
        value = _known_value(snippet.properties.get("connection"), definition.parameters)
        if value is _UNKNOWN or (value is None and not plugin.needs_connection()):
            continue  # known when the action runs, or the engine's own connection
        problem = connections.problem(tenant, value, kind)
        if problem is not None:
            problems.append(Problem(f"resources.{name}.properties.connection", problem))
    return problems


def check_connections(
    definition: StackDefinition,
    tenant: str | None,
    connections: ConnectionLookup,
    registry: Registry,
) -> None:
    problems = connection_problems(definition, tenant, connections, registry)
    if problems:
        raise TemplateError(problems)


def _known_value(value: Any, parameters: Mapping[str, Any]) -> Any:
    """The property's value if it is known at load (written out, or a parameter's)."""
    if isinstance(value, Mapping) and list(value) == ["get_param"]:
        ref = value["get_param"]
        if isinstance(ref, str) and ref in parameters:
            return parameters[ref]
        return _UNKNOWN
    if isinstance(value, Mapping | list):
        return _UNKNOWN  # another function: known when the action runs
    return value
