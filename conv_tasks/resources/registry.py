"""Which resource types exist: the built-in ones and those other packages plug in.

Third-party types come from the entry-point group "conv_tasks.resource_types"
(entry point name = the type name, object = the ResourceType subclass). The
registry only looks types up and describes them; it never runs an action.
"""

from __future__ import annotations

import builtins
import functools
import inspect
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol

from conv_tasks.errors import InvalidInput, NotFound, NotSupported, Problem
from conv_tasks.resources.builtin import BUILTIN_TYPES
from conv_tasks.resources.deprecation import deprecation_warnings
from conv_tasks.sdk import (
    CONNECTION_KINDS,
    ENTRY_POINT_GROUP,
    SDK_VERSION,
    STRING,
    AttributeSchema,
    PropertySchema,
    ResourceType,
    TypeLookup,
    can_observe,
    static_problems,
    static_section_problems,
    visible_schemas,
)
from conv_tasks.suggestions import did_you_mean, suggesting

if TYPE_CHECKING:
    from conv_tasks.template import Template


class EntryPointLike(Protocol):
    """The part of importlib.metadata.EntryPoint the loader uses."""

    @property
    def name(self) -> str: ...

    def load(self) -> Any: ...


class Registry:
    """Resource types by name."""

    def __init__(self) -> None:
        self._types: dict[str, type[ResourceType]] = {}

    def register(self, cls: type[ResourceType]) -> None:
        """Add a type. InvalidInput if it is not a well-formed ResourceType or the name is taken."""
        if not (isinstance(cls, type) and issubclass(cls, ResourceType)):
            raise InvalidInput(
                [Problem("resource_types", f"{cls!r} is not a ResourceType subclass.")],
                what="resource type",
            )
        name = getattr(cls, "type_name", None)
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput(
                [Problem("resource_types", f"{cls.__qualname__} has a blank type_name.")],
                what="resource type",
            )
        where = f"resource_types.{name}"
        existing = self._types.get(name)
        if existing is not None:
            raise InvalidInput(
                [Problem(where, f"is already registered by {_dotted(existing)}.")],
                what="resource type",
            )
        problems = _schema_problems(cls, where)
        if problems:
            raise InvalidInput(problems, what="resource type")
        self._types[name] = cls

    def get(self, type_name: str) -> type[ResourceType]:
        """The type, HIDDEN ones included (stacks that already use them keep working)."""
        try:
            return self._types[type_name]
        except KeyError:
            message = f"Unknown resource type '{type_name}'"
            raise NotFound(suggesting(message, type_name, self._visible_names())) from None

    def unknown_type(self, type_name: str) -> str:
        """What a template naming `type_name`, which this registry does not have, is told:
        the nearest name if one is near, else where to see them all."""
        suggestion = did_you_mean(type_name, self._visible_names())
        hint = suggestion or "see `conv-tasks resource-type list`."
        return f"unknown resource type '{type_name}'; {hint}"

    def _visible_names(self) -> builtins.list[str]:
        return [name for name, cls in self._types.items() if not cls.support_status.hidden]

    def with_types(self, extra: Mapping[str, type[ResourceType]]) -> Registry:
        """A registry of these types plus `extra` (name -> type), which win over these: a
        stack's provider templates, known to that stack only. This registry is unchanged."""
        overlay = Registry()
        overlay._types = {**self._types, **extra}
        return overlay

    def substitutes(self, old_type: str, new_type: str) -> bool:
        """True if new_type is old_type's substitute (seed 004): a resource whose type
        changes so converges in place. False if either type is unknown."""
        old, new = self._types.get(old_type), self._types.get(new_type)
        return old is not None and new is not None and old.can_be_replaced_by(new)

    def list(self, *, include_hidden: bool = False) -> builtins.list[type[ResourceType]]:
        """Every type sorted by name; HIDDEN ones only when asked for."""
        return [
            cls
            for name, cls in sorted(self._types.items())
            if include_hidden or not cls.support_status.hidden
        ]

    def show(self, type_name: str) -> dict[str, Any]:
        """A JSON description of a type. NotSupported for HIDDEN types, NotFound for unknown."""
        cls = self.get(type_name)
        if cls.support_status.hidden:
            raise NotSupported(
                f"Resource type '{type_name}' is HIDDEN and can no longer be shown; "
                "stacks that already use it keep working."
            )
        schema = cls.properties_schema
        return {
            "resource_type": type_name,
            "description": _summary(cls),
            "support_status": cls.support_status.to_dict(),
            "properties": None if schema is None else visible_schemas(schema),
            "attributes": visible_schemas(cls.attributes_schema),
        }

    def __contains__(self, type_name: object) -> bool:
        return type_name in self._types


def load_entry_point_types(eps: Iterable[EntryPointLike]) -> list[type[ResourceType]]:
    """The classes behind entry points. InvalidInput naming every entry point that is broken."""
    found: list[type[ResourceType]] = []
    problems: list[Problem] = []
    for ep in eps:
        where = f"entry_points.{ENTRY_POINT_GROUP}.{ep.name}"
        try:
            cls = ep.load()
        except Exception as exc:  # any import error is the plugin's: report it
            problems.append(Problem(where, f"cannot be loaded: {type(exc).__name__}: {exc}."))
            continue
        if not (isinstance(cls, type) and issubclass(cls, ResourceType)):
            problems.append(Problem(where, f"{cls!r} is not a ResourceType subclass."))
            continue
        if getattr(cls, "type_name", None) != ep.name:
            problems.append(
                Problem(
                    where,
                    f"names type {getattr(cls, 'type_name', None)!r}; the entry point name "
                    "must be the type name.",
                )
            )
            continue
        found.append(cls)
    if problems:
        raise InvalidInput(problems, what="resource type plugins")
    return found


def build_registry(eps: Iterable[EntryPointLike] = ()) -> Registry:
    """A registry of the built-in types plus those behind eps."""
    registry = Registry()
    for cls in (*BUILTIN_TYPES, *load_entry_point_types(eps)):
        registry.register(cls)
    return registry


@functools.cache
def default_registry() -> Registry:
    """Built-in types and every installed plugin; built once per process."""
    return build_registry(entry_points(group=ENTRY_POINT_GROUP))


def template_problems(
    template: Template, registry: Registry, lookup: TypeLookup | None = None
) -> tuple[list[Problem], list[str]]:
    """(problems, warnings) for every resource of a loaded template. lookup finds the types
    named inside properties (a group's member type); registry's own types by default."""
    lookup = lookup or type_lookup(registry)
    problems: list[Problem] = []
    warnings: list[str] = []
    for name, snippet in template.resources.items():
        try:
            cls = registry.get(snippet.type)
        except NotFound:
            problems.append(Problem(f"resources.{name}.type", registry.unknown_type(snippet.type)))
            continue
        values = snippet.properties or {}
        problems.extend(static_problems(cls, values, path=f"resources.{name}.properties"))
        problems.extend(
            cls.template_problems(values, path=f"resources.{name}.properties", lookup=lookup)
        )
        problems.extend(_update_policy_problems(cls, snippet.update_policy, f"resources.{name}"))
        if snippet.external_id is not None:
            problems.extend(_adoption_problems(cls, f"resources.{name}.external_id"))
        warnings.extend(deprecation_warnings(cls, values, path=f"resources.{name}"))
    return problems, warnings


def type_lookup(registry: Registry) -> TypeLookup:
    """registry.get as a lookup that answers None for a type it does not have."""

    def lookup(type_name: str) -> type[ResourceType] | None:
        try:
            return registry.get(type_name)
        except (NotFound, NotSupported):
            return None

    return lookup


def _update_policy_problems(
    cls: type[ResourceType], policy: Mapping[str, Any], where: str
) -> list[Problem]:
    """An update_policy checked against the type's schema; refused for a type with none."""
    if not policy:
        return []
    path = f"{where}.update_policy"
    if cls.update_policy_schema is None:
        return [
            Problem(
                path,
                f"resource type '{cls.type_name}' has no update policy; "
                "remove update_policy from this resource.",
            )
        ]
    return static_section_problems(cls.update_policy_schema, policy, path=path)


def _adoption_problems(cls: type[ResourceType], path: str) -> list[Problem]:
    """external_id on a type that cannot adopt: one without `observe`, or one that says why
    not (not_adoptable)."""
    if not can_observe(cls):
        why = "cannot observe an existing object, so it cannot adopt one"
    elif cls.not_adoptable is not None:
        why = f"cannot adopt an existing object: {cls.not_adoptable}"
    else:
        return []
    return [
        Problem(
            path,
            f"resource type '{cls.type_name}' {why}; remove external_id from this resource.",
        )
    ]


def _schema_problems(cls: type[ResourceType], where: str) -> list[Problem]:
    problems = []
    props = cls.properties_schema
    if props is not None and not (
        isinstance(props, Mapping) and all(isinstance(p, PropertySchema) for p in props.values())
    ):
        problems.append(
            Problem(f"{where}.properties_schema", "must map names to PropertySchema or be None.")
        )
    attrs = cls.attributes_schema
    if not (
        isinstance(attrs, Mapping) and all(isinstance(a, AttributeSchema) for a in attrs.values())
    ):
        problems.append(Problem(f"{where}.attributes_schema", "must map names to AttributeSchema."))
    problems.extend(_sdk_problems(cls, where))
    problems.extend(_connection_problems(cls, where))
    problems.extend(_secret_property_problems(cls, where))
    return problems


def _secret_property_problems(cls: type[ResourceType], where: str) -> list[Problem]:
    """A secret property must be one of the type's properties (a typo would show a secret)."""
    unknown = sorted(set(cls.secret_properties) - set(cls.properties_schema or {}))
    if not unknown:
        return []
    return [
        Problem(
            f"{where}.secret_properties",
            f"names {', '.join(unknown)}, which the properties_schema does not have.",
        )
    ]


def _sdk_problems(cls: type[ResourceType], where: str) -> list[Problem]:
    """A type written for SDK versions this conv_tasks does not offer is refused."""
    wanted = cls.sdk_versions
    if wanted is None:
        return []
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        supported = SpecifierSet(wanted)
    except (InvalidSpecifier, TypeError):
        return [Problem(f"{where}.sdk_versions", f"is not a version specifier: {wanted!r}.")]
    if SDK_VERSION in supported:
        return []
    return [
        Problem(
            f"{where}.sdk_versions",
            f"the type is written for SDK {wanted}; this conv_tasks offers SDK {SDK_VERSION}.",
        )
    ]


def _connection_problems(cls: type[ResourceType], where: str) -> list[Problem]:
    """A type that acts through a connection declares its kind and a `connection` property."""
    kind = cls.connection_kind
    if kind is None:
        return []
    if kind not in CONNECTION_KINDS:
        return [
            Problem(
                f"{where}.connection_kind",
                f"must be one of {', '.join(CONNECTION_KINDS)}, got {kind!r}.",
            )
        ]
    prop = (cls.properties_schema or {}).get("connection")
    if prop is None or prop.type != STRING:
        return [
            Problem(
                f"{where}.properties_schema",
                "needs a string property `connection` (the name of its connection).",
            )
        ]
    return []


def _dotted(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _summary(cls: type) -> str:
    """The first paragraph of the class's docstring, on one line: its line breaks and the
    indentation of its continued lines become single spaces."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    return " ".join(doc.split("\n\n", 1)[0].split())
