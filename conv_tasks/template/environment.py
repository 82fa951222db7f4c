"""Environments: parsing the sections Heat users write, and merging several in order.

An environment supplies parameter values (`parameters`), defaults shared by every template
of a stack (`parameter_defaults`), and a `resource_registry` that maps resource types to
other types (an alias, `OS::Heat::None` to disable a resource) or to provider templates
(a file in the request's files map). Several environments merge in the order given; a
later one wins key by key (docs/features/environments.md).

Pure: it parses what it is given. It must never read files, evaluate intrinsic functions
or look a type up in the resource registry of plugins.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from conv_tasks.errors import InvalidEnvironment, ParameterError, Problem, TemplateError
from conv_tasks.input_text import name_problem, utf8_length
from conv_tasks.limits import (
    MAX_ENVIRONMENT_BYTES,
    MAX_ENVIRONMENTS,
    MAX_FILE_NAME_CHARS,
    MAX_FILES,
    MAX_FILES_BYTES,
)
from conv_tasks.suggestions import suggesting
from conv_tasks.template.document import join_path, plain_document
from conv_tasks.template.yaml_source import parse_yaml

SECTIONS = (
    "parameters",
    "parameter_defaults",
    "resource_registry",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
)
# Heat's sections that conv_tasks reads only when they ask for nothing
# (docs/features/environments.md says why).
REFUSED_SECTIONS = {
    "event_sinks": "event sinks (Zaqar queues) are not supported; follow `stack events`",
    "parameter_merge_strategies": (
        "only the default strategy (a later environment's value replaces an earlier one's) "
        "is supported"
    ),
    "encrypted_param_names": (
        "conv_tasks keeps hidden parameters secret itself; the list must be empty"
    ),
}
# The per-resource registry entries Heat knows besides type mappings.
REFUSED_RESOURCE_KEYS = {
    "hooks": "breakpoint hooks are not supported",
    "restricted_actions": "restricted actions are not supported",
}
# A registry value that names a template file is a provider template, as in Heat.
PROVIDER_SUFFIXES = (".yaml", ".template")


@dataclass(frozen=True)
class Environment:
    """One environment, or several merged. Mappings are read-only; to_dict() is its JSON."""

    parameters: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    parameter_defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # type name (or "Prefix::*") -> type name, "Prefix::*" or template file name
    registry: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # resource name -> its own mappings, which win over the stack-wide ones
    resource_registry: Mapping[str, Mapping[str, str]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def is_empty(self) -> bool:
        return not (
            self.parameters or self.parameter_defaults or self.registry or self.resource_registry
        )

    def to_dict(self) -> dict[str, Any]:
        """The environment as Heat writes one; what raw_template.environment stores."""
        registry: dict[str, Any] = dict(self.registry)
        if self.resource_registry:
            registry["resources"] = {
                name: dict(mappings) for name, mappings in self.resource_registry.items()
            }
        result: dict[str, Any] = {}
        if self.parameters:
            result["parameters"] = dict(self.parameters)
        if self.parameter_defaults:
            result["parameter_defaults"] = dict(self.parameter_defaults)
        if registry:
            result["resource_registry"] = registry
        return result

    def merged(self, later: Environment) -> Environment:
        """This environment with `later` on top: each key of `later` replaces the same key
        here (a parameter, a default, a type mapping, a resource's mapping of one type)."""
        per_resource = {name: dict(mappings) for name, mappings in self.resource_registry.items()}
        for name, mappings in later.resource_registry.items():
            per_resource[name] = {**per_resource.get(name, {}), **mappings}
        return _frozen(
            {**self.parameters, **later.parameters},
            {**self.parameter_defaults, **later.parameter_defaults},
            {**self.registry, **later.registry},
            per_resource,
        )


EMPTY = Environment()


def _frozen(
    parameters: Mapping[str, Any],
    defaults: Mapping[str, Any],
    registry: Mapping[str, str],
    per_resource: Mapping[str, Mapping[str, str]],
) -> Environment:
    return Environment(
        MappingProxyType(dict(parameters)),
        MappingProxyType(dict(defaults)),
        MappingProxyType(dict(registry)),
        MappingProxyType({k: MappingProxyType(dict(v)) for k, v in per_resource.items()}),
    )


def parse_environment(source: str | bytes | Mapping[str, Any], *, name: str) -> Environment:
    """The environment in source (YAML text or a parsed mapping); `name` says where it came
    from in every problem (a file name, or `environment.0` for a task's first one).
    Raises InvalidEnvironment listing every problem found."""
    document = _document(source, name)
    problems: list[Problem] = []
    for key in document:
        if key not in SECTIONS:
            problems.append(
                Problem(
                    join_path(name, key),
                    "unknown section; expected one of " + ", ".join(SECTIONS),
                )
            )
    for key, refusal in REFUSED_SECTIONS.items():
        value = document.get(key)
        if value not in (None, [], {}):
            problems.append(Problem(join_path(name, key), f"is not supported: {refusal}"))
    parameters = _mapping(document, "parameters", name, problems)
    defaults = _mapping(document, "parameter_defaults", name, problems)
    for section, values in (("parameters", parameters), ("parameter_defaults", defaults)):
        for key in values:
            bad_name = name_problem(key)
            if bad_name is not None:
                problems.append(Problem(join_path(name, section), f"a parameter name {bad_name}"))
    registry, per_resource = _registry(
        _mapping(document, "resource_registry", name, problems),
        join_path(name, "resource_registry"),
        problems,
    )
    if problems:
        raise InvalidEnvironment(problems)
    return _frozen(parameters, defaults, registry, per_resource)


def merge_environments(sources: Sequence[str | bytes | Mapping[str, Any]]) -> Environment:
    """The environments of one request, parsed and merged in order (the last wins).
    Problems are named `environment.N` for the N-th (from 0); every problem of every
    environment is reported together."""
    if len(sources) > MAX_ENVIRONMENTS:
        raise InvalidEnvironment(
            [
                Problem(
                    "environment",
                    f"{len(sources)} environments given; the limit is {MAX_ENVIRONMENTS} "
                    "(MAX_ENVIRONMENTS)",
                )
            ]
        )
    merged = EMPTY
    problems: list[Problem] = []
    for index, source in enumerate(sources):
        try:
            merged = merged.merged(parse_environment(source, name=f"environment.{index}"))
        except InvalidEnvironment as exc:
            problems.extend(exc.problems)
    if problems:
        raise InvalidEnvironment(problems)
    return merged


def parameter_values(
    declared: Collection[str], explicit: Mapping[str, Any], environment: Environment
) -> dict[str, Any]:
    """The values to check against the template's parameters, by Heat's precedence: those
    given with the request, then the environment's `parameters`, then its
    `parameter_defaults` (which replace the template's defaults), then the template's.

    A name in `parameters` that the template does not declare is refused (ParameterError
    naming environment.parameters.NAME); `parameter_defaults` may name parameters the
    template lacks (they are defaults for every template of a stack) and those are ignored.
    """
    unknown = [name for name in environment.parameters if name not in declared]
    if unknown:
        raise ParameterError(
            [
                Problem(
                    join_path("environment.parameters", name),
                    suggesting("is not a parameter of this template", name, declared),
                )
                for name in unknown
            ]
        )
    defaults = {k: v for k, v in environment.parameter_defaults.items() if k in declared}
    return {**defaults, **environment.parameters, **explicit}


def stored_environment(document: Mapping[str, Any] | None) -> Environment:
    """An environment as raw_template.environment holds it (already checked when stored)."""
    if not document:
        return EMPTY
    return parse_environment(document, name="environment")


def check_files(files: Mapping[str, Any], *, path: str = "files") -> dict[str, str]:
    """The files map as a plain dict of name -> text, refused past the limits before any work:
    MAX_FILES files, MAX_FILES_BYTES of text together, names of at most MAX_FILE_NAME_CHARS."""
    if not isinstance(files, Mapping):
        raise InvalidEnvironment([Problem(path, "must be a mapping of file names to text")])
    if len(files) > MAX_FILES:
        raise InvalidEnvironment(
            [Problem(path, f"{len(files)} files given; the limit is {MAX_FILES} (MAX_FILES)")]
        )
    problems: list[Problem] = []
    total = 0
    for key, text in files.items():
        if not isinstance(key, str) or not key:
            problems.append(Problem(path, "file names must be non-empty strings"))
            continue
        shown = repr(key[:60]) + ("..." if len(key) > 60 else "")
        reason = name_problem(key) if len(key) <= MAX_FILE_NAME_CHARS else None
        if len(key) > MAX_FILE_NAME_CHARS:
            reason = f"is longer than {MAX_FILE_NAME_CHARS} characters (MAX_FILE_NAME_CHARS)"
        if reason is not None:
            problems.append(Problem(path, f"the file name {shown} {reason}"))
            continue
        if not isinstance(text, str):
            problems.append(Problem(join_path(path, key), "must be the file's text (a string)"))
            continue
        size = utf8_length(text)
        if size is None or "\x00" in text:
            problems.append(Problem(join_path(path, key), "must be text without NUL characters"))
            continue
        total += size
    if total > MAX_FILES_BYTES:
        problems.append(
            Problem(
                path,
                f"the files hold {total} bytes together; the limit is {MAX_FILES_BYTES} bytes "
                "(MAX_FILES_BYTES)",
            )
        )
    if problems:
        raise InvalidEnvironment(problems)
    return dict(files)


def _document(source: str | bytes | Mapping[str, Any], name: str) -> Mapping[str, Any]:
    if isinstance(source, str | bytes):
        size = len(source) if isinstance(source, bytes) else len(source.encode("utf-8", "replace"))
        _check_size(size, name)
        try:
            parsed = parse_yaml(source, filename=name)
        except TemplateError as exc:
            raise InvalidEnvironment(exc.problems) from None
    elif isinstance(source, Mapping):
        try:
            size = len(json.dumps(source, separators=(",", ":")).encode("utf-8", "replace"))
        except (TypeError, ValueError):
            size = 0  # plain_document below names what JSON cannot hold
        _check_size(size, name)
        parsed = source
    else:
        raise InvalidEnvironment([Problem(name, "an environment must be YAML text or a mapping")])
    if parsed is None:
        return {}  # an empty file is an empty environment, as in Heat
    if not isinstance(parsed, Mapping):
        raise InvalidEnvironment(
            [Problem(name, "an environment must be a mapping of sections (parameters, ...)")]
        )
    document, problems = plain_document(parsed, name)
    if problems:
        raise InvalidEnvironment(problems)
    assert isinstance(document, dict)
    return document


def _check_size(size: int, name: str) -> None:
    if size > MAX_ENVIRONMENT_BYTES:
        raise InvalidEnvironment(
            [
                Problem(
                    name,
                    f"the environment is {size} bytes; the limit is {MAX_ENVIRONMENT_BYTES} "
                    "bytes (MAX_ENVIRONMENT_BYTES)",
                )
            ]
        )


def _mapping(
    document: Mapping[str, Any], key: str, name: str, problems: list[Problem]
) -> Mapping[str, Any]:
    value = document.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(Problem(join_path(name, key), "must be a mapping"))
        return {}
    return value


def _registry(
    section: Mapping[str, Any], path: str, problems: list[Problem]
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    registry: dict[str, str] = {}
    per_resource: dict[str, dict[str, str]] = {}
    for key, value in section.items():
        if key == "resources":
            per_resource = _per_resource(value, join_path(path, key), problems)
            continue
        mapping = _type_mapping(key, value, join_path(path, key), problems)
        if mapping is not None:
            registry[key] = mapping
    return registry, per_resource


def _per_resource(value: Any, path: str, problems: list[Problem]) -> dict[str, dict[str, str]]:
    if not isinstance(value, Mapping):
        problems.append(Problem(path, "must map resource names to their type mappings"))
        return {}
    result: dict[str, dict[str, str]] = {}
    for resource, entries in value.items():
        where = join_path(path, resource)
        if not isinstance(entries, Mapping):
            problems.append(Problem(where, "must map resource types to what implements them"))
            continue
        mappings: dict[str, str] = {}
        for key, target in entries.items():
            if key in REFUSED_RESOURCE_KEYS:
                problems.append(
                    Problem(
                        join_path(where, key), f"is not supported: {REFUSED_RESOURCE_KEYS[key]}"
                    )
                )
                continue
            mapping = _type_mapping(key, target, join_path(where, key), problems)
            if mapping is not None:
                mappings[key] = mapping
        result[resource] = mappings
    return result


def _type_mapping(key: str, value: Any, path: str, problems: list[Problem]) -> str | None:
    if not key or name_problem(key) is not None:
        problems.append(Problem(path, "a resource type name must be non-empty printable text"))
        return None
    if not isinstance(value, str) or not value:
        problems.append(
            Problem(path, "must name a resource type or a provider template file (a string)")
        )
        return None
    if value.endswith("*") and not key.endswith("*"):
        problems.append(
            Problem(
                path,
                "only a wildcard type ('OS::Old::*') may map to a wildcard ('OS::New::*')",
            )
        )
        return None
    if value.startswith(("http://", "https://")):
        problems.append(
            Problem(path, "provider templates from URLs are not supported; send it in files")
        )
        return None
    return value


def is_provider(target: str) -> bool:
    """Whether a registry value names a provider template rather than a type."""
    return target.endswith(PROVIDER_SUFFIXES)
