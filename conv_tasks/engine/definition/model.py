"""A stack's desired state: a loaded template with its effective parameters.

The template's resource types are those after its environment's resource_registry, and
its parameters are those given, then the environment's, then the template's defaults.
Raw templates (with their environment and files) never change once stored, so a
definition is built once per template id per process (definitions.py keeps them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from conv_tasks.constraints import ConstraintCheckers
from conv_tasks.engine.definition.custom_constraints import unchecked_constraints
from conv_tasks.engine.definition.providers import environment_lookup, with_providers
from conv_tasks.engine.definition.redact import MASK, Redactor
from conv_tasks.engine.definition.request_checks import request_problems
from conv_tasks.engine.definition.secret_properties import known_secret_values, secret_properties
from conv_tasks.errors import CycleError, TemplateError
from conv_tasks.graph import find_cycle
from conv_tasks.resources import Registry, ResourceType, default_registry, prepare_properties
from conv_tasks.resources import template_problems as resource_problems
from conv_tasks.template import (
    ALL_ATTRIBUTES,
    EMPTY,
    Environment,
    ResolvedResource,
    ResourceData,
    Template,
    apply_conditions,
    apply_facade,
    check_files,
    definition_hash,
    facade_readers,
    load_template,
    map_resource_types,
    parameter_values,
    pseudo_values,
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
    # Per resource, the attributes that are credentials (a wait condition handle's token):
    # never shown, and whatever reads them is in hidden_resources or hidden_outputs.
    secret_attributes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Per resource, the properties that are credentials (ResourceType.secret_properties): shown
    # masked by name; their values known at load are masked everywhere by the redactor.
    secret_properties: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The merged environment and the files map it was built with: a nested stack's
    # template gets the same (parameter_defaults, resource_registry, files), as in Heat.
    environment: Environment = EMPTY
    files: Mapping[str, str] = field(default_factory=dict)
    # The resource types with this stack's provider templates added (None: it has none).
    types: Registry | None = None
    # The resources that read a facade derived from the parent's hidden parameters: their
    # properties hold those values where the calls were, so they are masked whole.
    facade_readers: frozenset[str] = frozenset()
    # A digest of what a child stack inherits from this stack (files, parameter_defaults,
    # resource_registry); None when it inherits nothing. Part of the definition hash of
    # every resource that owns a child stack.
    inherited_digest: str | None = None

    @classmethod
    def build(
        cls,
        source: str | Mapping[str, Any],
        parameters: Mapping[str, Any],
        registry: Registry | None = None,
        *,
        files: Mapping[str, str] | None = None,
        environment: Environment | None = None,
        facade: Mapping[str, Any] | None = None,
        constraints: ConstraintCheckers | None = None,
    ) -> StackDefinition:
        """Load and check a template, its environment and parameters (explicit ones win over
        the environment's), with each resource's type mapped through the environment's
        resource_registry. Raises with every problem found.

        constraints: the custom constraint checkers of a request, which check the values
        and warn of (or, strict, refuse) a constraint they lack; None for a stored template,
        whose values were checked when it was given (an `expiration` passes in time).

        files: the text of the files get_file names. facade: the definition of the parent
        resource (metadata, deletion_policy, update_policy) when the template is used as a
        nested stack or provider, for resource_facade. Conditions are decided here, from
        the parameter values, before dependencies are computed."""
        files = check_files(files or {})
        environment = environment or EMPTY
        template = load_template(source, files=files)
        mapped = map_resource_types(template, environment, files)
        template = mapped.template
        constraint_warnings: list[str] = []
        if constraints is not None:
            refused, constraint_warnings = unchecked_constraints(template, constraints)
            if refused:
                raise TemplateError(refused)
        values = validate_parameters(
            template, parameter_values(template.parameters, parameters, environment), constraints
        )
        values.update(pseudo_values(parameters))
        template = apply_conditions(template, values)
        # Before the calls are replaced: what reads a facade derived from hidden values.
        tainted, tainted_outputs = facade_readers(template, facade)
        template = apply_facade(template, facade)
        registry = registry or default_registry()
        types: Registry | None = None
        if mapped.providers:
            types = registry = with_providers(
                registry, mapped.providers, files, environment.parameter_defaults
            )
        problems, warnings = resource_problems(
            template, registry, environment_lookup(registry, environment, files)
        )
        if constraints is not None and not problems:
            # A request: refuse now what its traversal would fail on (a stored template
            # was accepted when it was given, and stays buildable).
            problems = request_problems(template, values, registry, environment, files)
        if problems:
            raise TemplateError(problems)
        deps = template.dependencies()
        cycle = find_cycle(deps)
        if cycle:
            raise CycleError(cycle)
        hidden = [values[name] for name in template.hidden_parameters() if name in values]
        secret_attributes = {
            name: registry.get(snippet.type).secret_attributes
            for name, snippet in template.resources.items()
            if registry.get(snippet.type).secret_attributes
        }
        hidden_resources, hidden_outputs = template.derived_from_hidden(secret_attributes, tainted)
        hidden_outputs |= tainted_outputs
        secret = secret_properties(template, registry)
        hidden.extend(known_secret_values(template, secret, values))
        return cls(
            template=template,
            parameters=values,
            redact=Redactor(hidden),
            dependencies=deps,
            attributes_needed=_attributes_needed(template, registry),
            warnings=(*constraint_warnings, *warnings),
            hidden_resources=hidden_resources,
            hidden_outputs=hidden_outputs,
            attribute_references=template.attribute_references(),
            secret_attributes=secret_attributes,
            secret_properties=secret,
            environment=environment,
            files=files,
            types=types,
            facade_readers=tainted,
            inherited_digest=inherited_digest(files, environment),
        )

    def prepare(
        self, name: str, inputs: Mapping[str, ResourceData], registry: Registry | None = None
    ) -> PreparedResource:
        """The resource resolved against its inputs, its properties checked; its definition
        hash also covers what its type counts of the references to it (a group: the member
        attributes read) and, for a type that owns a child stack, what the child inherits
        (a provider template's text among the files), so the engine and preview decide
        alike."""
        resolved = resolve_resource(self.template, name, self.parameters, inputs)
        resource_type = self.plugin_type(resolved.type, registry)
        properties = prepare_properties(
            resource_type, resolved.properties, path=f"resources.{name}.properties"
        )
        digest = resolved.definition_hash
        counted = resource_type.references_in_definition(self.attribute_references.get(name, ()))
        if counted is not None:
            digest = definition_hash(digest, counted, None)
        if resource_type.owns_child_stack and self.inherited_digest is not None:
            digest = definition_hash(digest, self.inherited_digest, None)
        if digest != resolved.definition_hash:
            resolved = replace(resolved, definition_hash=digest)
        return PreparedResource(resolved, resource_type, properties)

    def plugin_type(self, type_name: str, registry: Registry | None = None) -> type[ResourceType]:
        """The class of `type_name`: one of this stack's provider templates, else from
        `registry` (the default one when not given)."""
        if self.types is not None and type_name in self.types:
            return self.types.get(type_name)
        return (registry or default_registry()).get(type_name)

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
            source = "hidden parameters"
            if self.secret_attributes:
                source = (
                    "hidden parameters or secret attributes"
                    if self.template.hidden_parameters()
                    else "secret attributes (a wait condition handle's token)"
                )
            return f"details withheld: the properties of {resource} derive from {source}"
        return self.redact(text)


def inherited_digest(files: Mapping[str, str], environment: Environment) -> str | None:
    """sha256 of what a child stack inherits from its parent (its files, parameter_defaults
    and stack-wide resource_registry: engine.features.nested hands these down), None if
    nothing: stacks without them keep the definition hashes they always had."""
    if not (files or environment.parameter_defaults or environment.registry):
        return None
    inherited = {
        "files": dict(files),
        "parameter_defaults": environment.parameter_defaults,
        "resource_registry": environment.registry,
    }
    canonical = json.dumps(inherited, sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    # Mappings kept read-only (MappingProxyType) are written as the dicts they hold.
    return dict(value) if isinstance(value, Mapping) else str(value)


def _attributes_needed(template: Template, registry: Registry) -> dict[str, frozenset[str]]:
    """template.attributes_needed with get_attr [resource] read as every attribute of the
    resource's type (a type with dynamic attributes gives what it has)."""
    needed = template.attributes_needed()
    for name, attributes in needed.items():
        if ALL_ATTRIBUTES in attributes:
            schema = registry.get(template.resources[name].type).attributes_schema
            needed[name] = (attributes - {ALL_ATTRIBUTES}) | frozenset(schema)
    return needed
