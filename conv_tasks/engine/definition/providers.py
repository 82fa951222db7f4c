"""The resource types a stack's provider templates implement (Heat's TemplateResource).

An environment's resource_registry may map a type to a template file. A resource of
that type is stored with the file's name as its type and acted on by a class made from
the file's text (resources.provider_template). Such a class belongs to the stack whose
files hold the template, not to the process: a definition carries it in a registry of
its own, and a node finds it through the definition of its version's template.
This module must never touch the database itself; callers hand it definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conv_tasks.errors import NotFound, NotSupported, Problem, TemplateError
from conv_tasks.resources import (
    ProviderTemplateResource,
    Registry,
    ResourceType,
    TypeLookup,
    provider_template_type,
)
from conv_tasks.template import Environment, ProviderTemplate, is_provider, resolve_type

# A resource name no template has: a group's members are checked against the stack-wide
# mappings only, the ones their child stack inherits.
_NO_RESOURCE = ""


def with_providers(
    registry: Registry,
    providers: Mapping[str, ProviderTemplate],
    files: Mapping[str, str],
    parameter_defaults: Mapping[str, Any] | None = None,
) -> Registry:
    """`registry` plus a type for each provider template, named by its file (a parameter
    that the environment's `parameter_defaults` set is not a required property). Raises
    TemplateError naming the resource for a provider template that does not load."""
    classes: dict[str, type[ResourceType]] = {}
    problems: list[Problem] = []
    for name, provider in providers.items():
        if provider.path in classes:
            continue
        try:
            classes[provider.path] = provider_template_type(
                provider.path,
                provider.text,
                path=provider.path,
                files=files,
                parameter_defaults=parameter_defaults,
            )
        except TemplateError as exc:
            problems.extend(
                Problem(
                    f"resources.{name}.type",
                    f"the provider template of '{provider.type_name}' does not load: "
                    f"{problem.path}: {problem.message}",
                )
                for problem in exc.problems
            )
    if problems:
        raise TemplateError(problems)
    return registry.with_types(classes)


def plugin_type(
    registry: Registry,
    type_name: str,
    provider_registries: Callable[[], list[Registry]],
) -> type[ResourceType]:
    """The class that acts on a stored resource of `type_name`. A provider template's
    class comes from the first of `provider_registries` (the registries of the version's
    own template, then of the traversal's) that knows it. When neither does (the version's
    template was collected and the stack moved to other files), the bare provider class
    still finds, interrupts and deletes the child stack by its id."""
    if not is_provider(type_name):
        return registry.get(type_name)
    for candidate in provider_registries():
        if type_name in candidate:
            return candidate.get(type_name)
    return ProviderTemplateResource


def registries_of(*lookups: Callable[[], Registry | None]) -> list[Registry]:
    """The registries the lookups give, skipping those whose template is gone."""
    found: list[Registry] = []
    for lookup in lookups:
        try:
            registry = lookup()
        except NotFound:
            continue
        if registry is not None:
            found.append(registry)
    return found


def environment_lookup(
    registry: Registry, environment: Environment, files: Mapping[str, str]
) -> TypeLookup:
    """A lookup of types named inside properties (a group's member type), through the
    stack-wide resource_registry as the child stack will map them: an alias gives the class
    it maps to, a provider template the class made from its file. A provider template that
    does not load gives the bare provider class, which checks nothing: the child's create
    reports what is wrong with it. None for a type that does not exist."""

    def lookup(type_name: str) -> type[ResourceType] | None:
        try:
            target = resolve_type(environment, type_name, _NO_RESOURCE)
        except TemplateError:
            return None
        if is_provider(target):
            text = files.get(target)
            if text is None:
                return None
            try:
                return provider_template_type(
                    target,
                    text,
                    path=target,
                    files=files,
                    parameter_defaults=environment.parameter_defaults,
                )
            except TemplateError:
                return ProviderTemplateResource
        try:
            return registry.get(target)
        except (NotFound, NotSupported):
            return None

    return lookup
