"""Secret properties (ResourceType.secret_properties, a role's password): which resources of a
template have them, and the values of theirs known when the template is loaded.

A value written out in the template, or given by a parameter (`get_param`), is known at load:
the stack's redactor masks it wherever it appears, as it masks a hidden parameter's value. A
value computed from another resource (get_attr) is known only when the action runs: the
engine masks it in what the action's failure says, and `resource show` and `stack preview`
mask the property by name whatever its value. Pure: reads no database.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.resources import Registry
from conv_tasks.template import Template


def secret_properties(template: Template, registry: Registry) -> dict[str, frozenset[str]]:
    """Per resource whose type has secret properties, their names."""
    found = {}
    for name, snippet in template.resources.items():
        secret = registry.get(snippet.type).secret_properties
        if secret:
            found[name] = frozenset(secret)
    return found


def known_secret_values(
    template: Template,
    secret: Mapping[str, frozenset[str]],
    parameters: Mapping[str, Any],
) -> list[object]:
    """The values of the secret properties that are known when the template is loaded."""
    values: list[object] = []
    for resource, names in secret.items():
        properties = template.resources[resource].properties
        if not isinstance(properties, Mapping):
            continue
        for name in names:
            value = _known(properties.get(name), parameters)
            if value is not None:
                values.append(value)
    return values


def _known(value: Any, parameters: Mapping[str, Any]) -> object | None:
    if isinstance(value, Mapping) and list(value) == ["get_param"]:
        ref = value["get_param"]
        if isinstance(ref, list) and len(ref) == 1:
            ref = ref[0]
        return parameters.get(ref) if isinstance(ref, str) else None
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return value
    return None
