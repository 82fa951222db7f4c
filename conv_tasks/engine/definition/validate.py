"""Validating a template without running it: `template validate` and conv_tasks.template.validate.

Checks everything a stack create would check before storing anything, and more, but
needs no parameter values: a parameter without a value is not an error here, and a value
given is checked against its declaration. Every get_attr must name an attribute of its
resource's type (ResourceType.has_attribute: types with dynamic_attributes are not
checked, their attributes depend on their properties). Every error names its dotted path
and, for YAML text, the line and column where that path starts (counted from 1); for a
mapping there are no positions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from conv_tasks.constraints import ConstraintCheckers, installed_checkers
from conv_tasks.engine.definition.custom_constraints import unchecked_constraints
from conv_tasks.engine.definition.providers import environment_lookup, with_providers
from conv_tasks.engine.definition.request_checks import request_problems
from conv_tasks.engine.definition.stack_inputs import request_inputs
from conv_tasks.errors import ConvTasksError, NotFound, Problem, TemplateError
from conv_tasks.graph import find_cycle, plan_traversal
from conv_tasks.resources import Registry, default_registry, static_problems
from conv_tasks.resources import template_problems as resource_problems
from conv_tasks.suggestions import did_you_mean, suggesting
from conv_tasks.template import (
    EMPTY,
    ArgumentError,
    Environment,
    GetAttr,
    PatternWork,
    Template,
    TemplateSyntaxError,
    apply_facade,
    check_value,
    default_problems,
    function_call,
    is_provider,
    join_path,
    load_template,
    map_resource_types,
    misspelt_function,
    node_marks,
    parameter_values,
    parse_call,
    parse_yaml,
    resolve_type,
)

Position = tuple[int, int] | None


def validate_template(
    source: str | bytes | Mapping[str, Any],
    parameters: Mapping[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    filename: str = "template",
    environment: Sequence[str | Mapping[str, Any]] | None = None,
    files: Mapping[str, Any] | None = None,
    constraints: ConstraintCheckers | None = None,
) -> dict[str, Any]:
    """{"valid", "errors": [{"path", "message", "line", "column"}], "warnings", "order",
    "dependencies", "types"}. Never raises for a problem of the template, its environments,
    files or the values. "types" are the types after the environments' resource_registry.
    constraints: the custom constraint checkers (those installed, not strict, by default):
    values and defaults are checked with them, and a constraint none provides is a warning
    (strict: an error)."""
    registry = registry or default_registry()
    constraints = constraints or installed_checkers()
    try:
        inputs = request_inputs(environment, files)
    except ConvTasksError as exc:
        # Without its environment the template's types and parameters cannot be judged.
        return _result([_error(p, None) for p in _problems(exc)])
    marks: dict[str, tuple[int, int]] = {}
    document: Any = source
    if isinstance(source, str | bytes):
        try:
            document = parse_yaml(source, filename=filename)
        except TemplateSyntaxError as exc:
            return _result([_error(p, (exc.line, exc.column)) for p in exc.problems])
        except TemplateError as exc:
            return _result([_error(p, None) for p in exc.problems])
        marks = node_marks(source)
    try:
        template = load_template(document, filename=filename, files=inputs.files)
    except ConvTasksError as exc:
        # The checks that need no loaded template still run, so nothing waits for a fix.
        found = _problems(exc) + _type_problems(
            document, registry, inputs.environment, inputs.files
        )
        return _result(_located(found, marks))
    try:
        mapped = map_resource_types(template, inputs.environment, inputs.files)
    except ConvTasksError as exc:
        return _result(_located(_problems(exc), marks))
    template = mapped.template
    problems: list[Problem] = []
    if mapped.providers:
        try:
            registry = with_providers(
                registry, mapped.providers, inputs.files, inputs.environment.parameter_defaults
            )
        except ConvTasksError as exc:
            return _result(_located(_problems(exc), marks))
    unchecked, constraint_warnings = unchecked_constraints(template, constraints)
    problems.extend(unchecked)
    problems.extend(_environment_problems(template, inputs.environment, constraints))
    problems.extend(_parameter_problems(template, parameters or {}, constraints))
    found, warnings = resource_problems(
        template, registry, environment_lookup(registry, inputs.environment, inputs.files)
    )
    warnings = [*constraint_warnings, *warnings]
    problems.extend(found)
    problems.extend(attribute_problems(template, registry))
    problems.extend(_facade_problems(template))
    if not problems:
        values = _known_values(template, parameters or {}, inputs.environment)
        problems.extend(
            request_problems(template, values, registry, inputs.environment, inputs.files)
        )
    dependencies = template.dependencies()
    order: list[str] = []
    cycle = find_cycle(dependencies)
    if cycle:
        shown = " -> ".join([*cycle, cycle[0]])
        problems.append(Problem(join_path("resources", cycle[0]), f"circular dependency: {shown}"))
    else:
        plan = plan_traversal((), dependencies)
        order = [node.name for node in plan.graph.order() if node.phase == "update"]
    warnings = [*warnings, *misspelt_function_warnings(template, [p.path for p in problems])]
    result = _result(_located(problems, marks), warnings)
    result["order"] = order if not problems else []
    result["dependencies"] = {k: sorted(v) for k, v in dependencies.items()}
    result["types"] = {name: snippet.type for name, snippet in template.resources.items()}
    return result


def attribute_problems(template: Template, registry: Registry) -> list[Problem]:
    """A problem for every get_attr naming an attribute its resource's type does not have."""
    problems = []
    for value, where in _places(template):
        for call, path in _get_attrs(value, where):
            target = template.resources.get(call.resource)
            if target is None:
                continue  # load_template reports it
            try:
                cls = registry.get(target.type)
            except ConvTasksError:
                continue  # an unknown type: reported once, by its resource
            if call.attribute is None:
                continue  # None: get_attr [resource] reads whatever attributes there are
            reason = cls.reference_problem(call.attribute, call.path)
            if reason is not None:
                problems.append(Problem(path, reason))
                continue
            if not cls.has_attribute(call.attribute):
                schema = cls.attributes_schema
                known = did_you_mean(call.attribute, schema)
                known = known or f"its attributes: {', '.join(sorted(schema)) or 'none'}"
                problems.append(
                    Problem(
                        path,
                        f"resource '{call.resource}' ({target.type}) has no attribute "
                        f"'{call.attribute}'; {known}",
                    )
                )
    return problems


def _facade_problems(template: Template) -> list[Problem]:
    """resource_facade calls: a template validated on its own is a top-level stack's."""
    try:
        apply_facade(template, None)
    except TemplateError as exc:
        return list(exc.problems)
    return []


def _known_values(
    template: Template, parameters: Mapping[str, Any], environment: Environment
) -> dict[str, Any]:
    """The parameter values known without a create: those given (already checked) or set
    by the environment, else the template's defaults; a parameter with none is unknown."""
    try:
        given = parameter_values(template.parameters, parameters, environment)
    except ConvTasksError:
        return {}
    values = {n: s.default for n, s in template.parameters.items() if s.has_default}
    work = PatternWork()
    for name, value in given.items():
        schema = template.parameters.get(name)
        if schema is None or value is None:
            continue
        coerced, problems = check_value(schema, value, join_path("parameters", name), work)
        if not problems:
            values[name] = coerced
    return values


def misspelt_function_warnings(template: Template, error_paths: Sequence[str]) -> list[str]:
    """A warning for every map whose one key is nearly a function's name ({get_atr: ...})
    where no error already names the place: such a map is data, which the template's
    writer rarely meant."""
    warnings = []
    for value, where in _places(template):
        for item, path in _values(value, where):
            misspelt = misspelt_function(item)
            if misspelt and not any(e == path or e.startswith(f"{path}.") for e in error_paths):
                warnings.append(f"{path}: {misspelt} (as written, the map is data)")
    return warnings


def _places(template: Template) -> list[tuple[Any, str]]:
    """Every value of the template a function may be in, with its path."""
    places: list[tuple[Any, str]] = []
    for name, snippet in template.resources.items():
        path = join_path("resources", name)
        places.append((snippet.properties, join_path(path, "properties")))
        places.append((snippet.metadata, join_path(path, "metadata")))
    for name, output in template.outputs.items():
        places.append((output.value, join_path(join_path("outputs", name), "value")))
    return places


def _values(value: Any, path: str) -> Iterator[tuple[Any, str]]:
    """value and every value inside it (a function's arguments too), with their paths."""
    todo = [(value, path)]
    while todo:
        item, where = todo.pop()
        yield item, where
        call = function_call(item)
        if call is not None:
            todo.append((call[1], join_path(where, call[0])))
        elif isinstance(item, Mapping):
            todo.extend((v, join_path(where, k)) for k, v in item.items())
        elif isinstance(item, list | tuple):
            todo.extend((v, join_path(where, i)) for i, v in enumerate(item))


def _environment_problems(
    template: Template, environment: Environment, constraints: ConstraintCheckers
) -> list[Problem]:
    """The environment's parameters must be the template's, and fit their declarations."""
    try:
        values = parameter_values(template.parameters, {}, environment)
    except ConvTasksError as exc:
        return _problems(exc)
    problems = []
    work = PatternWork()
    for name, value in values.items():
        section = "parameters" if name in environment.parameters else "parameter_defaults"
        if value is not None:
            path = join_path(f"environment.{section}", name)
            schema = template.parameters[name]
            problems.extend(check_value(schema, value, path, work, constraints)[1])
    return problems


def _type_problems(
    document: Any,
    registry: Registry,
    environment: Environment = EMPTY,
    files: Mapping[str, str] | None = None,
) -> list[Problem]:
    """Unknown types and bad properties of the resources of a template that did not load."""
    resources = document.get("resources") if isinstance(document, Mapping) else None
    if not isinstance(resources, Mapping):
        return []
    problems: list[Problem] = []
    for name, spec in resources.items():
        if not isinstance(name, str) or not isinstance(spec, Mapping):
            continue
        type_name, properties = spec.get("type"), spec.get("properties") or {}
        if not isinstance(type_name, str) or not type_name:
            continue  # load_template reports it
        path = join_path("resources", name)
        try:
            type_name = resolve_type(environment, type_name, name)
        except TemplateError as exc:
            problems.extend(exc.problems)
            continue
        if is_provider(type_name):
            continue  # a provider template is checked once the template loads
        try:
            cls = registry.get(type_name)
        except NotFound:
            problems.append(Problem(join_path(path, "type"), registry.unknown_type(type_name)))
            continue
        if isinstance(properties, Mapping):
            where = join_path(path, "properties")
            problems.extend(static_problems(cls, properties, path=where))
            problems.extend(
                cls.template_problems(
                    properties,
                    path=where,
                    lookup=environment_lookup(registry, environment, files or {}),
                )
            )
    return problems


def _get_attrs(value: Any, path: str) -> Iterator[tuple[GetAttr, str]]:
    """Every get_attr call in value, with the path of the call."""
    for item, where in _values(value, path):
        call = function_call(item)
        if call is None or call[0] != "get_attr":
            continue
        try:
            parsed = parse_call(*call)
        except ArgumentError:
            continue
        if isinstance(parsed, GetAttr):
            yield parsed, join_path(where, "get_attr")


def _parameter_problems(
    template: Template, values: Mapping[str, Any], constraints: ConstraintCheckers
) -> list[Problem]:
    """Values given are checked; a parameter without a value is not a problem here. The
    defaults are checked against the custom constraints (the others were when it loaded)."""
    if not isinstance(values, Mapping):
        return [Problem("parameters", "must be a mapping of names to values")]
    problems = []
    for name, declared in template.parameters.items():
        problems.extend(default_problems(declared, join_path("parameters", name), constraints))
    work = PatternWork()
    for name, value in values.items():
        path = join_path("parameters", name)
        schema = template.parameters.get(name)
        if schema is None:
            message = suggesting("is not a parameter of this template", name, template.parameters)
            problems.append(Problem(path, message))
        elif value is not None:
            problems.extend(check_value(schema, value, path, work, constraints)[1])
    return problems


def _problems(exc: ConvTasksError) -> list[Problem]:
    found = getattr(exc, "problems", None)
    return list(found) if found else [Problem("", str(exc))]


def _located(problems: list[Problem], marks: Mapping[str, tuple[int, int]]) -> list[dict[str, Any]]:
    errors = [_error(p, locate(p.path, marks)) for p in problems]
    # In the order they are written; those without a position last.
    return sorted(errors, key=lambda e: (e["line"] is None, e["line"] or 0, e["column"] or 0))


def locate(path: str, marks: Mapping[str, tuple[int, int]]) -> Position:
    """Where path starts, or where its nearest enclosing path that was written starts."""
    while path:
        if path in marks:
            return marks[path]
        path = path.rpartition(".")[0]
    return None


def _error(problem: Problem, position: Position) -> dict[str, Any]:
    line, column = position if position is not None else (None, None)
    return {"path": problem.path, "message": problem.message, "line": line, "column": column}


def _result(errors: list[dict[str, Any]], warnings: list[str] | None = None) -> dict[str, Any]:
    return {
        "valid": not errors,
        "errors": errors,
        "warnings": list(warnings or ()),
        "order": [],
        "dependencies": {},
        "types": {},
    }
