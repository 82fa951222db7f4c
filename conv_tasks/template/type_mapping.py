"""Resource types through an environment's resource_registry: aliases, OS::Heat::None, providers.

A resource's type as written passes through the registry (a resource's own mappings
first, then the stack-wide ones; an exact name before a wildcard) until it reaches a name
that nothing maps further: that is the type that implements the resource, the type the
engine looks up, stores on the resource's row and shows. A type that is (or maps to) a
template file is implemented by a provider template, given as a ProviderTemplate; the
file's name is then the resource's type (a changed file is an update of the same type,
a type mapped to another file is a replacement).

Pure: it must never read files (a provider template's text comes from the files map) or
look a type up in the plugins' registry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from conv_tasks.errors import Problem, TemplateError
from conv_tasks.limits import MAX_TYPE_MAPPINGS
from conv_tasks.template.environment import Environment, is_provider
from conv_tasks.template.model import Template


@dataclass(frozen=True)
class ProviderTemplate:
    """A resource type implemented by a template: `path` names it in the files map."""

    type_name: str  # the type as the template wrote it
    path: str
    text: str


@dataclass(frozen=True)
class MappedTemplate:
    """A template whose resource types are the implementing ones, and its provider resources."""

    template: Template
    providers: Mapping[str, ProviderTemplate]  # resource name -> its provider template


def _lookup(environment: Environment, type_name: str, resource: str) -> str | None:
    own = environment.resource_registry.get(resource, {})
    for mappings in (own, environment.registry):
        if type_name in mappings:
            return mappings[type_name]
    for mappings in (own, environment.registry):
        # The longest wildcard prefix wins, so a narrower mapping can refine a broader one.
        matches = [key for key in mappings if key.endswith("*") and type_name.startswith(key[:-1])]
        if matches:
            key = max(matches, key=len)
            target = mappings[key]
            if target.endswith("*"):
                return target[:-1] + type_name[len(key) - 1 :]
            return target
    return None


def resolve_type(environment: Environment, type_name: str, resource: str) -> str:
    """The type (or provider template file name) that implements `resource`'s `type_name`.

    Raises TemplateError at resources.RESOURCE.type for a cycle of mappings or a chain
    longer than MAX_TYPE_MAPPINGS.
    """
    path = f"resources.{resource}.type"
    seen = [type_name]
    current = type_name
    for step in range(MAX_TYPE_MAPPINGS + 1):
        if is_provider(current):
            return current
        target = _lookup(environment, current, resource)
        if target is None or target == current:
            return current
        if target in seen:
            chain = " -> ".join([*seen, target])
            raise TemplateError([Problem(path, f"the resource_registry maps in a circle: {chain}")])
        if step == MAX_TYPE_MAPPINGS:
            break
        seen.append(target)
        current = target
    raise TemplateError(
        [
            Problem(
                path,
                f"'{type_name}' passes through more than {MAX_TYPE_MAPPINGS} resource_registry "
                "mappings (MAX_TYPE_MAPPINGS)",
            )
        ]
    )


def map_resource_types(
    template: Template, environment: Environment, files: Mapping[str, str]
) -> MappedTemplate:
    """The template with each resource's type replaced by the type (or provider template
    file) implementing it.

    Raises TemplateError with every problem: mapping cycles, and provider templates that
    are not in files (naming the type and the file).
    """
    problems: list[Problem] = []
    snippets = dict(template.resources)
    providers: dict[str, ProviderTemplate] = {}
    for name, snippet in template.resources.items():
        try:
            target = resolve_type(environment, snippet.type, name)
        except TemplateError as exc:
            problems.extend(exc.problems)
            continue
        if is_provider(target):
            text = files.get(target)
            if text is None:
                problems.append(
                    Problem(
                        f"resources.{name}.type",
                        f"'{snippet.type}' is implemented by the provider template "
                        f"'{target}', which is not in the files sent with the request",
                    )
                )
                continue
            providers[name] = ProviderTemplate(snippet.type, target, text)
        if target != snippet.type:
            snippets[name] = dataclasses.replace(snippet, type=target)
    if problems:
        raise TemplateError(problems)
    if snippets == dict(template.resources):
        return MappedTemplate(template, MappingProxyType(providers))
    mapped = dataclasses.replace(template, resources=MappingProxyType(snippets))
    return MappedTemplate(mapped, MappingProxyType(providers))
