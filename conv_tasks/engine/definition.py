"""A stack's desired state: a loaded template with its effective parameters.

Raw templates never change once stored, so a definition is built once per
template id per process and kept in a cache bounded in bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.engine.cache import ByteBoundedCache
from conv_tasks.engine.redact import MASK, Redactor
from conv_tasks.errors import CycleError, NotFound, TemplateError
from conv_tasks.graph import find_cycle
from conv_tasks.resources import Registry, ResourceType, default_registry, prepare_properties
from conv_tasks.resources import template_problems as resource_problems
from conv_tasks.settings import get_settings
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
    # Resources and outputs whose values may derive from hidden parameters: masked whole.
    hidden_resources: frozenset[str] = frozenset()
    hidden_outputs: frozenset[str] = frozenset()
    # Resource name -> its get_attr references (attribute, literal path), for groups.
    attribute_references: Mapping[str, tuple[tuple[str, tuple[Any, ...]], ...]] = field(
        default_factory=dict
    )

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
        hidden_resources, hidden_outputs = template.derived_from_hidden()
        return cls(
            template=template,
            parameters=values,
            redact=Redactor(hidden),
            dependencies=deps,
            attributes_needed=template.attributes_needed(),
            warnings=tuple(warnings),
            hidden_resources=hidden_resources,
            hidden_outputs=hidden_outputs,
            attribute_references=template.attribute_references(),
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

    def shown_outputs(self, inputs: Mapping[str, ResourceData]) -> dict[str, dict[str, Any]]:
        """The outputs as a user may see them: one derived from a hidden parameter is masked
        whole, and hidden values are masked wherever else they appear."""
        shown = {}
        for name, output in self.outputs(inputs).items():
            if name in self.hidden_outputs and output.get("value") is not None:
                output = {**output, "value": MASK}
            shown[name] = self.redact.value(output)
        return shown

    def reason(self, resource: str, text: str) -> str:
        """A failure reason about `resource` as a user may see it: withheld whole if the
        resource's properties derive from a hidden parameter."""
        if resource in self.hidden_resources:
            return f"details withheld: the properties of {resource} derive from hidden parameters"
        return self.redact(text)


# What a definition costs in memory, per byte of its template's and parameters' JSON text,
# plus a fixed part: an upper bound measured with tracemalloc over chains, fans and templates
# full of intrinsic functions (tests/engine/test_engine_definition_cache.py holds it to that).
BYTES_PER_JSON_BYTE = 32
BYTES_PER_DEFINITION = 16 * 1024


def definition_weight(template_text: str, parameters_text: str) -> int:
    """The bytes a definition built from this JSON text may hold, at most."""
    return BYTES_PER_DEFINITION + BYTES_PER_JSON_BYTE * (len(template_text) + len(parameters_text))


class Definitions:
    """The definitions of stored templates, built once per process within a byte budget.

    A stored template never changes, so its definition is built on first use
    and kept until the budget needs the room for more recent ones.
    """

    def __init__(self, budget: int) -> None:
        self._cache: ByteBoundedCache[int, StackDefinition] = ByteBoundedCache(budget)

    @property
    def used(self) -> int:
        """Bytes the kept definitions are estimated to hold."""
        return self._cache.used

    def get(
        self, template_id: int, load: Callable[[int], tuple[str, str] | None]
    ) -> StackDefinition:
        """The definition of a stored template; `load` gives its JSON text on a miss.

        NotFound if the template is gone (its stack moved on and it was collected).
        """
        found = self._cache.get(template_id)
        if found is not None:
            return found
        loaded = load(template_id)
        if loaded is None:
            raise NotFound(f"Template {template_id} not found.")
        template_text, parameters_text = loaded
        definition = StackDefinition.build(json.loads(template_text), json.loads(parameters_text))
        self._cache.put(template_id, definition, definition_weight(template_text, parameters_text))
        return definition

    def remember(
        self,
        template_id: int,
        definition: StackDefinition,
        template: Mapping[str, Any],
        parameters: Mapping[str, Any],
    ) -> None:
        """Keep a definition just built for a template just stored."""
        weight = definition_weight(json.dumps(template), json.dumps(parameters))
        self._cache.put(template_id, definition, weight)

    def of(
        self, template_id: int, template: Mapping[str, Any], parameters: Mapping[str, Any]
    ) -> StackDefinition:
        """The definition of a stored template whose row the caller has already read."""
        found = self._cache.get(template_id)
        if found is not None:
            return found
        definition = StackDefinition.build(template, parameters)
        self.remember(template_id, definition, template, parameters)
        return definition


_default: Definitions | None = None


def default_definitions() -> Definitions:
    """This process's definitions, within the configured budget (CONV_TASKS_CACHE_MB)."""
    global _default
    if _default is None:
        _default = Definitions(get_settings().cache_bytes)
    return _default
