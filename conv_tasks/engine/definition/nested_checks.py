"""nested_problems: the templates of a stack's child stacks, checked when it is requested.

A provider template, an OS::Heat::Stack's literal template and the provider template of a
group's members (while the group's count is not a literal 0) are loaded and checked as
their child stack's create will check them: their resource types, their properties
(bounds such as TestResource's wait_secs included) and the calls whose arguments are
literals, and so on for their own children, to MAX_NESTING_DEPTH. A problem is reported
at the parent's resource, with the child's template and path in its message, so that
nothing fails in the middle of a create that could have been refused at the request.
What depends on the child's parameters (its conditions, get_param) is left to the child.
Each distinct template is checked once per request, however many resources use it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from conv_tasks.engine.definition.providers import environment_lookup, with_providers
from conv_tasks.errors import Problem, TemplateError
from conv_tasks.limits import MAX_NESTING_DEPTH
from conv_tasks.resources import Registry, type_lookup
from conv_tasks.resources import template_problems as resource_problems
from conv_tasks.template import (
    Environment,
    Template,
    is_provider,
    known_call_problems,
    load_template,
    map_resource_types,
    resolve_type,
)

# A resource name no template has: a group's members see the stack-wide mappings only.
_NO_RESOURCE = ""


@dataclass(frozen=True)
class _Child:
    """A child stack's template as the parent's request gives it."""

    label: str  # how the message names it: its file, or "(inline)"
    source: str | Mapping[str, Any]
    where: str  # the parent's path the problems are reported at


@dataclass
class _Checks:
    registry: Registry
    environment: Environment
    files: Mapping[str, str]
    done: dict[str, list[Problem]] = field(default_factory=dict)


def nested_problems(
    template: Template, registry: Registry, environment: Environment, files: Mapping[str, str]
) -> list[Problem]:
    """Every problem of the child templates of `template` (its types already mapped through
    `environment`), reported at the parent resource that owns the child."""
    return _problems(template, _Checks(registry, environment, files), depth=1)


def _problems(template: Template, checks: _Checks, depth: int) -> list[Problem]:
    if depth > MAX_NESTING_DEPTH:
        return []  # the create refuses a stack nested deeper; nothing more to say here
    problems: list[Problem] = []
    for name, snippet in template.resources.items():
        child = _child(name, snippet.type, snippet.properties, checks)
        if child is None:
            continue
        for problem in _child_problems(child, checks, depth):
            problems.append(
                Problem(
                    child.where,
                    f"the nested template {child.label} is refused: "
                    f"{problem.path}: {problem.message}",
                )
            )
    return problems


def _child(
    name: str, type_name: str, properties: Mapping[str, Any], checks: _Checks
) -> _Child | None:
    path = f"resources.{name}"
    if is_provider(type_name):
        text = checks.files.get(type_name)
        return None if text is None else _Child(f"'{type_name}'", text, f"{path}.type")
    # The type says where its child's template comes from (OS::Heat::Stack: its `template`;
    # a group: its members' type), if anything says it before the child is made.
    source = type_lookup(checks.registry)(type_name)
    found = None if source is None else source.child_template_source(properties)
    if found is None:
        return None
    where = f"{path}.properties.{found.path}"
    if found.template is not None:
        return _Child("(inline)", found.template, where)
    return None if found.member_type is None else _member_child(where, found.member_type, checks)


def _member_child(where: str, member_type: str, checks: _Checks) -> _Child | None:
    """The provider template the type of a group's members maps to, if it is one."""
    try:
        target = resolve_type(checks.environment, member_type, _NO_RESOURCE)
    except TemplateError:
        return None  # the group's own checks report it
    text = checks.files.get(target) if is_provider(target) else None
    if text is None:
        return None
    return _Child(f"'{target}'", text, where)


def _child_problems(child: _Child, checks: _Checks, depth: int) -> list[Problem]:
    key = _key(child.source)
    found = checks.done.get(key)
    if found is None:
        checks.done[key] = []  # a template that nests itself is checked once
        found = checks.done[key] = _check(child, checks, depth)
    return found


def _check(child: _Child, checks: _Checks, depth: int) -> list[Problem]:
    try:
        template = load_template(child.source, filename=child.label, files=checks.files)
        mapped = map_resource_types(template, checks.environment, checks.files)
        registry = with_providers(
            checks.registry,
            mapped.providers,
            checks.files,
            checks.environment.parameter_defaults,
        )
    except TemplateError as exc:
        return list(exc.problems)
    # A resource with a condition may be switched off by the child's parameters.
    unconditional = replace(
        mapped.template,
        resources=MappingProxyType(
            {n: s for n, s in mapped.template.resources.items() if s.condition is None}
        ),
    )
    lookup = environment_lookup(registry, checks.environment, checks.files)
    problems, _ = resource_problems(unconditional, registry, lookup)
    problems.extend(known_call_problems(unconditional, {}))
    nested = _Checks(registry, checks.environment, checks.files, checks.done)
    problems.extend(_problems(unconditional, nested, depth + 1))
    return problems


def _key(source: str | Mapping[str, Any]) -> str:
    text = source if isinstance(source, str) else json.dumps(source, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
