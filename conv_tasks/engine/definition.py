"""A stack's desired state: a loaded template with its effective parameters.

Raw templates never change once stored, so a definition is built once per
template id per process and cached.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.engine.redact import Redactor
from conv_tasks.errors import CycleError, TemplateError
from conv_tasks.graph import find_cycle
from conv_tasks.resources import Registry, ResourceType, default_registry, prepare_properties
from conv_tasks.resources import template_problems as resource_problems
from conv_tasks.template import (
    ResolvedResource,
    ResourceData,
    Template,
    load_template,
    resolve_outputs,
    resolve_resource,
    validate_parameters,
)

EMPTY_TEMPLATE: dict[str, Any] = {"heat_template_version": "2018-08-31", "resources": {}}


@dataclass(frozen=True)
class PreparedResource:
    """A resource ready to converge: resolved against its inputs, properties validated."""

    resolved: ResolvedResource
    resource_type: type[ResourceType]
    properties: dict[str, Any]


@dataclass(frozen=True)
class StackDefinition:
    template: Template
    parameters: dict[str, Any]
    redact: Redactor
    dependencies: dict[str, frozenset[str]]
    attributes_needed: dict[str, frozenset[str]]
    warnings: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        source: str | Mapping[str, Any],
        parameters: Mapping[str, Any],
        registry: Registry | None = None,
    ) -> StackDefinition:
        """Load and check a template and its parameters. Raises with every problem found."""
        template = load_template(source)
        values = validate_parameters(template, parameters)
        problems, warnings = resource_problems(template, registry or default_registry())
        if problems:
            raise TemplateError(problems)
        deps = template.dependencies()
        cycle = find_cycle(deps)
        if cycle:
            raise CycleError(cycle)
        hidden = [values[name] for name in template.hidden_parameters() if name in values]
        return cls(
            template=template,
            parameters=values,
            redact=Redactor(hidden),
            dependencies=deps,
            attributes_needed=template.attributes_needed(),
            warnings=tuple(warnings),
        )

    def prepare(
        self, name: str, inputs: Mapping[str, ResourceData], registry: Registry | None = None
    ) -> PreparedResource:
        resolved = resolve_resource(self.template, name, self.parameters, inputs)
        resource_type = (registry or default_registry()).get(resolved.type)
        properties = prepare_properties(
            resource_type, resolved.properties, path=f"resources.{name}.properties"
        )
        return PreparedResource(resolved, resource_type, properties)

    def outputs(self, inputs: Mapping[str, ResourceData]) -> dict[str, dict[str, Any]]:
        return resolve_outputs(self.template, self.parameters, inputs)


_cache: OrderedDict[int, StackDefinition] = OrderedDict()
_CACHE_SIZE = 64


def peek_definition(template_id: int) -> StackDefinition | None:
    """The cached definition of a stored template, if this process has built it."""
    found = _cache.get(template_id)
    if found is not None:
        _cache.move_to_end(template_id)
    return found


def cached_definition(
    template_id: int, template: Mapping[str, Any], parameters: Mapping[str, Any]
) -> StackDefinition:
    """The definition of a stored template, built once per process."""
    found = _cache.get(template_id)
    if found is not None:
        _cache.move_to_end(template_id)
        return found
    definition = StackDefinition.build(template, parameters)
    _cache[template_id] = definition
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return definition
