"""load_template: turns HOT text or a parsed mapping into a checked Template.

Every structural problem is collected and raised together as one TemplateError.
It must never evaluate functions or look at parameter values supplied by a user.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from conv_tasks.errors import Problem, TemplateError
from conv_tasks.input_text import name_problem
from conv_tasks.limits import MAX_RESOURCES
from conv_tasks.suggestions import suggesting
from conv_tasks.template.conditions import check_conditions_section
from conv_tasks.template.document import join_path, plain_document
from conv_tasks.template.files import include_files
from conv_tasks.template.function_checks import Scope, check_functions
from conv_tasks.template.model import (
    OutputSnippet,
    ParameterGroup,
    ParameterSchema,
    ResourceSnippet,
    Template,
)
from conv_tasks.template.parameters import parse_parameter
from conv_tasks.template.patterns import PatternWork
from conv_tasks.template.pseudo_parameters import PSEUDO_PARAMETERS
from conv_tasks.template.resource_section import resource_snippet
from conv_tasks.template.section_checks import condition_problems, text_field, unknown_keys
from conv_tasks.template.versions import (
    DATED_VERSIONS,
    known_versions,
    normalise_version,
)
from conv_tasks.template.yaml_source import parse_yaml

TOP_LEVEL_KEYS = (
    "heat_template_version",
    "description",
    "parameters",
    "parameter_groups",
    "resources",
    "outputs",
    "conditions",
)
OUTPUT_KEYS = ("value", "description", "condition")
GROUP_KEYS = ("label", "description", "parameters")


def load_template(
    source: str | bytes | Mapping[str, Any],
    *,
    filename: str = "template",
    files: Mapping[str, str] | None = None,
) -> Template:
    """The template in source. Raises TemplateError listing every problem found.

    files maps the names get_file uses to their text; their text replaces the calls in
    the Template's resources and outputs (its raw document keeps the calls)."""
    raw = _document(source, filename)
    document = include_files(raw, files)
    problems: list[Problem] = [
        Problem(key, "unknown top-level key; expected one of " + ", ".join(TOP_LEVEL_KEYS))
        for key in document
        if key not in TOP_LEVEL_KEYS
    ]
    version = _version(document, problems)
    description = text_field(document, "description", "", problems)
    parameter_specs = _section(document, "parameters", problems)
    resource_specs = _section(document, "resources", problems)
    output_specs = _section(document, "outputs", problems)

    parameters: dict[str, ParameterSchema] = {}
    work = PatternWork()  # the defaults' pattern checks share one budget
    for name, spec in parameter_specs.items():
        schema, more = parse_parameter(
            name, spec, join_path("parameters", name), work, version=version
        )
        problems.extend(more)
        if schema is not None:
            parameters[name] = schema
    groups = _groups(document.get("parameter_groups"), frozenset(parameter_specs), problems)

    condition_specs = document.get("conditions")
    scope = Scope(
        version,
        frozenset(parameter_specs) | PSEUDO_PARAMETERS,
        frozenset(resource_specs),
        conditions=frozenset(condition_specs)
        if isinstance(condition_specs, Mapping)
        else frozenset(),
    )
    problems.extend(check_conditions_section(condition_specs, scope))
    resources: dict[str, ResourceSnippet] = {}
    for name, spec in resource_specs.items():
        snippet = resource_snippet(name, spec, scope, problems)
        if snippet is not None:
            resources[name] = snippet
    outputs: dict[str, OutputSnippet] = {}
    for name, spec in output_specs.items():
        output = _output(name, spec, scope, problems)
        if output is not None:
            outputs[name] = output

    if problems:
        raise TemplateError(problems)
    return Template(
        version=version,
        description=description,
        parameters=MappingProxyType(parameters),
        parameter_groups=groups,
        resources=MappingProxyType(resources),
        outputs=MappingProxyType(outputs),
        raw=raw,
        conditions=MappingProxyType(dict(condition_specs or {})),
    )


def _document(source: str | bytes | Mapping[str, Any], filename: str) -> dict[str, Any]:
    if isinstance(source, str | bytes):
        parsed = parse_yaml(source, filename=filename)
    elif isinstance(source, Mapping):
        parsed = source
    else:
        raise TemplateError(f"{filename}: a template must be YAML text or a mapping")
    if not isinstance(parsed, Mapping):
        raise TemplateError(
            f"{filename}: a template must be a mapping with heat_template_version and resources"
        )
    resources = parsed.get("resources")
    if isinstance(resources, Mapping) and len(resources) > MAX_RESOURCES:
        # Before copying: each resource is several values, so the count is the sooner limit.
        raise TemplateError(
            [
                Problem(
                    "resources",
                    f"the template has {len(resources)} resources; the limit is "
                    f"{MAX_RESOURCES} (MAX_RESOURCES)",
                )
            ]
        )
    document, problems = plain_document(parsed)
    if problems:
        raise TemplateError(problems)
    assert isinstance(document, dict)
    return document


def _version(document: Mapping[str, Any], problems: list[Problem]) -> str:
    latest = DATED_VERSIONS[-1]
    if "heat_template_version" not in document:
        problems.append(Problem("heat_template_version", "is required"))
        return latest
    written = document["heat_template_version"]
    version = normalise_version(written)
    if version is None:
        problems.append(
            Problem(
                "heat_template_version",
                f"{str(written)[:40]!r} is not a known version; expected one of "
                + known_versions(),
            )
        )
        # Check the rest as if it were the newest version, so nothing is reported twice.
        return latest
    return version


def _section(document: Mapping[str, Any], key: str, problems: list[Problem]) -> Mapping[str, Any]:
    value = document.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(Problem(key, "must be a mapping of names to definitions"))
        return {}
    refused = set()
    for name in value:
        if name == "":
            problems.append(Problem(key, "names must not be empty"))
            continue
        reason = name_problem(name)
        if reason is not None:
            # The path is the section's: the name itself may be huge or hold control characters.
            shown = repr(name[:40]) + ("..." if len(name) > 40 else "")
            problems.append(Problem(key, f"the name {shown} {reason}"))
            refused.add(name)
    if refused:
        return {name: spec for name, spec in value.items() if name not in refused}
    return value


def _groups(
    value: Any, declared: frozenset[str], problems: list[Problem]
) -> tuple[ParameterGroup, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(Problem("parameter_groups", "must be a list"))
        return ()
    groups = []
    grouped: set[str] = set()
    for i, spec in enumerate(value):
        path = join_path("parameter_groups", i)
        if not isinstance(spec, Mapping):
            problems.append(Problem(path, "a parameter group must be a mapping"))
            continue
        problems.extend(unknown_keys(spec, GROUP_KEYS, path))
        label = text_field(spec, "label", path, problems)
        description = text_field(spec, "description", path, problems)
        names = spec.get("parameters")
        names_path = join_path(path, "parameters")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            problems.append(Problem(names_path, "must be a list of parameter names"))
            continue
        for j, name in enumerate(names):
            if name not in declared:
                message = suggesting(f"parameter '{name}' is not declared", name, declared)
                problems.append(Problem(join_path(names_path, j), message))
            elif name in grouped:
                problems.append(
                    Problem(
                        join_path(names_path, j), f"parameter '{name}' is in more than one group"
                    )
                )
            grouped.add(name)
        groups.append(ParameterGroup(label, description, tuple(names)))
    return tuple(groups)


def _output(name: str, spec: Any, scope: Scope, problems: list[Problem]) -> OutputSnippet | None:
    path = join_path("outputs", name)
    if not isinstance(spec, Mapping):
        problems.append(Problem(path, "an output must be a mapping with a value"))
        return None
    found = unknown_keys(spec, OUTPUT_KEYS, path)
    if "value" not in spec:
        found.append(Problem(join_path(path, "value"), "is required"))
    description = text_field(spec, "description", path, found)
    condition = spec.get("condition")
    found.extend(condition_problems(condition, join_path(path, "condition"), scope))
    found.extend(check_functions(spec.get("value"), join_path(path, "value"), scope))
    problems.extend(found)
    if found:
        return None
    return OutputSnippet(
        name, copy.deepcopy(spec["value"]), description, condition=copy.deepcopy(condition)
    )
