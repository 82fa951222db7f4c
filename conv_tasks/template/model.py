"""The values a loaded template is made of, and the data passed between resources.

All are frozen dataclasses. This module must never parse or validate a template:
load_template builds these only from a document that passed every check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.template.functions import GetAttr, GetResource, iter_calls, references
from conv_tasks.template.nested_attributes import nested_attribute

PARAMETER_TYPES: tuple[str, ...] = ("string", "number", "boolean", "json", "comma_delimited_list")
DELETION_POLICIES: tuple[str, ...] = ("Delete", "Retain")
# In attributes_needed: get_attr [resource] reads every attribute of the resource's type.
ALL_ATTRIBUTES = "*"


@dataclass(frozen=True)
class Constraint:
    """One parameter constraint. kind is allowed_values, range, length, allowed_pattern,
    modulo (a number that leaves `offset` when divided by `step`) or custom_constraint (the
    check named `custom`, which a plugin of conv_tasks.constraints may provide)."""

    kind: str
    description: str = ""
    allowed_values: tuple[Any, ...] = ()
    min: float | None = None
    max: float | None = None
    pattern: str | None = None
    step: int | None = None
    offset: int | None = None
    custom: str = ""


@dataclass(frozen=True)
class ParameterSchema:
    name: str
    type: str
    default: Any = None  # already coerced to the type; meaningful only if has_default
    has_default: bool = False
    hidden: bool = False
    label: str = ""
    description: str = ""
    constraints: tuple[Constraint, ...] = ()
    # Heat's `immutable: true`: an update may not change the value (engine/immutable.py).
    immutable: bool = False
    # Heat's parameter tags (2018-03-02 on): labels for tools, no effect on the stack.
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParameterGroup:
    label: str
    description: str
    parameters: tuple[str, ...]


@dataclass(frozen=True)
class ResourceSnippet:
    """A resource as written: properties and metadata still hold unevaluated functions."""

    name: str
    type: str
    properties: Mapping[str, Any] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    deletion_policy: str = "Delete"
    update_policy: Mapping[str, Any] = field(default_factory=dict)
    # None, a condition name, a boolean or a condition function (2016-10-14 on).
    condition: Any = None
    # The id of an existing object the resource adopts instead of creating one: a string or
    # a function giving one (2016-10-14 on); None for a resource that creates its object.
    external_id: Any = None

    def references(self) -> list[GetResource | GetAttr]:
        """The get_resource and get_attr calls in properties and metadata."""
        return [*references(self.properties), *references(self.metadata)]


@dataclass(frozen=True)
class OutputSnippet:
    name: str
    value: Any
    description: str = ""
    condition: Any = None


@dataclass(frozen=True)
class Template:
    version: str
    description: str
    parameters: Mapping[str, ParameterSchema]
    parameter_groups: tuple[ParameterGroup, ...]
    resources: Mapping[str, ResourceSnippet]
    outputs: Mapping[str, OutputSnippet]
    raw: Mapping[str, Any]  # the document as given: functions, conditions, get_file unresolved
    conditions: Mapping[str, Any] = field(default_factory=dict)

    def dependencies(self) -> dict[str, frozenset[str]]:
        """Every resource name -> the resources it requires (depends_on and references)."""
        result: dict[str, frozenset[str]] = {}
        for name, snippet in self.resources.items():
            required = set(snippet.depends_on)
            for ref in snippet.references():
                required.add(ref.name if isinstance(ref, GetResource) else ref.resource)
            result[name] = frozenset(required)
        return result

    def attributes_needed(self) -> dict[str, frozenset[str]]:
        """Every resource name -> the top-level attributes that get_attr reads from it
        (get_attr [res, resource.NAME, ATTR] reads resource.NAME.ATTR, as Heat does)."""
        needed: dict[str, set[str]] = {name: set() for name in self.resources}
        found = [ref for snippet in self.resources.values() for ref in snippet.references()]
        for output in self.outputs.values():
            found.extend(references(output.value))
        for ref in found:
            if isinstance(ref, GetAttr) and ref.resource in needed:
                needed[ref.resource].add(
                    ALL_ATTRIBUTES
                    if ref.attribute is None
                    else nested_attribute(ref.attribute, ref.path)[0]
                )
        return {name: frozenset(attributes) for name, attributes in needed.items()}

    def attribute_references(self) -> dict[str, tuple[tuple[str, tuple[Any, ...]], ...]]:
        """Resource name -> every get_attr of it in resources and outputs, as (attribute,
        path); path items that are functions are left out with everything after them.
        get_attr [resource] (no attribute) names nothing a group must read from its members,
        so it is not among them."""
        found: dict[str, list[tuple[str, tuple[Any, ...]]]] = {}
        calls = [ref for snippet in self.resources.values() for ref in snippet.references()]
        for output in self.outputs.values():
            calls.extend(references(output.value))
        for ref in calls:
            if not isinstance(ref, GetAttr) or ref.attribute is None:
                continue
            path: list[Any] = []
            for item in ref.path:
                if not isinstance(item, str | int):
                    break
                path.append(item)
            found.setdefault(ref.resource, []).append((ref.attribute, tuple(path)))
        return {name: tuple(dict.fromkeys(items)) for name, items in found.items()}

    def hidden_parameters(self) -> frozenset[str]:
        return frozenset(name for name, schema in self.parameters.items() if schema.hidden)

    def derived_from_hidden(
        self,
        secret_attributes: Mapping[str, frozenset[str]] | None = None,
        tainted: frozenset[str] = frozenset(),
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The resources and the outputs whose values may derive from a hidden parameter:
        those that read one (get_param, anywhere in their arguments) or read an attribute
        of such a resource (get_attr), followed through the whole template. A value that
        a function made from a secret need not contain it, so these are masked whole.
        `secret_attributes` names, per resource, the attributes that are secrets themselves
        (a wait condition handle's token): reading one counts as reading a hidden value.
        `tainted` names resources known to hold hidden values already (those that read a
        parent's facade derived from the parent's hidden parameters)."""
        hidden = self.hidden_parameters()
        secrets = secret_attributes or {}
        resources: set[str] = set()

        def derived(value: Any) -> bool:
            for name, args in iter_calls(value):
                target = args[0] if isinstance(args, list) and args else args
                if not isinstance(target, str):
                    continue
                if (name == "get_param" and target in hidden) or (
                    name == "get_attr" and target in resources
                ):
                    return True
                if name == "get_attr" and reads_secret_attribute(
                    args, secrets.get(target, frozenset())
                ):
                    return True
            return False

        if not hidden and not any(secrets.values()) and not tainted:
            return frozenset(), frozenset()
        resources.update(tainted)
        changed = True
        while changed:  # each pass adds at least one resource, or stops
            changed = False
            for name, snippet in self.resources.items():
                if name not in resources and (
                    derived(snippet.properties) or derived(snippet.metadata)
                ):
                    resources.add(name)
                    changed = True
        outputs = frozenset(name for name, out in self.outputs.items() if derived(out.value))
        return frozenset(resources), outputs


@dataclass(frozen=True)
class ResourceData:
    """What a completed resource hands on to the resources that depend on it."""

    ref: str | None
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResolvedResource:
    """A resource with every function evaluated."""

    name: str
    type: str
    properties: dict[str, Any]
    metadata: dict[str, Any]
    deletion_policy: str
    definition_hash: str
    update_policy: dict[str, Any] = field(default_factory=dict)
    # The id of the existing object the resource adopts (not part of definition_hash: it
    # says where the object came from, not what it should be).
    external_id: str | None = None


def reads_secret_attribute(args: Any, secret: frozenset[str]) -> bool:
    """Whether get_attr `args` reads one of the `secret` attributes (or, naming no attribute,
    all of them)."""
    if not secret or not isinstance(args, list):
        return False
    if len(args) < 2:
        return True
    return not isinstance(args[1], str) or args[1] in secret
