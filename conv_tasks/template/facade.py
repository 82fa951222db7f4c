"""resource_facade: a provider template reading its parent resource's definition.

The parent's metadata, deletion_policy and update_policy are put in place of the calls
when the stack definition is built. A template that is not used as a nested stack or a
provider has no parent, and calling resource_facade there is an error with its path.
facade_of says what a resolved resource hands its child stack as that definition; a
facade marked hidden (the parent resource derives from hidden parameters) makes whatever
reads it hidden in the child too (facade_readers).
Pure: it must never change the template (or the resource) it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from conv_tasks.errors import Problem, TemplateError
from conv_tasks.template.document import join_path
from conv_tasks.template.functions import function_call, iter_calls
from conv_tasks.template.model import ResolvedResource, Template

# What a parent resource gives when its definition does not say.
_DEFAULTS: dict[str, Any] = {"metadata": {}, "deletion_policy": "Delete", "update_policy": {}}
# The key of a facade that says its values derive from the parent's hidden parameters.
HIDDEN = "hidden"


def facade_of(resolved: ResolvedResource, *, hidden: bool = False) -> dict[str, Any]:
    """The definition a resource hands its child stack for resource_facade: its resolved
    metadata, its deletion_policy and its resolved update_policy ({} when it has none), as
    JSON-ready values. `hidden`: the resource derives from
    hidden parameters, so the child must treat these values as hidden too."""
    facade: dict[str, Any] = {
        "metadata": resolved.metadata,
        "deletion_policy": resolved.deletion_policy,
        "update_policy": resolved.update_policy or {},
    }
    if hidden:
        facade[HIDDEN] = True
    return facade


def facade_readers(
    template: Template, facade: Mapping[str, Any] | None
) -> tuple[frozenset[str], frozenset[str]]:
    """The resources and the outputs that call resource_facade, when `facade` is marked
    hidden (else none): their values may hold the parent's hidden values. Call it before
    apply_facade, which replaces the calls."""
    if not facade or not facade.get(HIDDEN):
        return frozenset(), frozenset()

    def reads(value: Any) -> bool:
        return any(name == "resource_facade" for name, _ in iter_calls(value))

    resources = frozenset(
        name
        for name, snippet in template.resources.items()
        if reads(snippet.properties) or reads(snippet.metadata)
    )
    outputs = frozenset(name for name, out in template.outputs.items() if reads(out.value))
    return resources, outputs


def apply_facade(template: Template, facade: Mapping[str, Any] | None) -> Template:
    """The template with every resource_facade call replaced from facade (the parent
    resource's definition: metadata, deletion_policy, update_policy)."""
    values: list[Any] = [o.value for o in template.outputs.values()]
    for snippet in template.resources.values():
        values.extend((snippet.properties, snippet.metadata, snippet.update_policy))
    if not any(name == "resource_facade" for v in values for name, _ in iter_calls(v)):
        return template
    problems: list[Problem] = []

    def put(value: Any, path: str) -> Any:
        call = function_call(value)
        if call is not None and call[0] == "resource_facade":
            if facade is None:
                problems.append(
                    Problem(
                        join_path(path, "resource_facade"),
                        "resource_facade works only in a template used as a nested stack "
                        "or as a provider of a resource type",
                    )
                )
                return None
            found = facade.get(call[1])
            return copy.deepcopy(_DEFAULTS[call[1]] if found is None else found)
        if isinstance(value, Mapping):
            return {k: put(v, join_path(path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [put(v, join_path(path, i)) for i, v in enumerate(value)]
        return value

    resources = {}
    for name, snippet in template.resources.items():
        path = join_path("resources", name)
        resources[name] = replace(
            snippet,
            properties=put(snippet.properties, join_path(path, "properties")),
            metadata=put(snippet.metadata, join_path(path, "metadata")),
            update_policy=put(snippet.update_policy, join_path(path, "update_policy")),
        )
    outputs = {
        name: replace(
            output, value=put(output.value, join_path(join_path("outputs", name), "value"))
        )
        for name, output in template.outputs.items()
    }
    if problems:
        raise TemplateError(problems)
    return replace(
        template, resources=MappingProxyType(resources), outputs=MappingProxyType(outputs)
    )
