"""Parameters: reading their declarations and checking the values a user supplies.

The value of a hidden parameter must never appear in any message this module makes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import ParameterError, Problem
from conv_tasks.suggestions import suggesting
from conv_tasks.template.constraints import (
    CUSTOM,
    CustomChecks,
    custom_violation,
    parse_constraint,
    violation,
)
from conv_tasks.template.document import join_path
from conv_tasks.template.model import PARAMETER_TYPES, ParameterSchema, Template
from conv_tasks.template.parameter_types import TypeMismatch, coerce
from conv_tasks.template.patterns import PatternWork
from conv_tasks.template.pseudo_parameters import PSEUDO_PARAMETERS

HIDDEN_VALUE = "******"
_PARAMETER_KEYS = (
    "type",
    "default",
    "hidden",
    "label",
    "description",
    "constraints",
    "immutable",
    "tags",
)
# Heat added parameter tags in 2018-03-02 (queens) and refuses them before.
TAGS_SINCE = "2018-03-02"


def parse_parameter(
    name: str,
    spec: Any,
    path: str,
    work: PatternWork | None = None,
    *,
    version: str = TAGS_SINCE,
) -> tuple[ParameterSchema | None, list[Problem]]:
    """The schema a parameter declaration describes, or the problems with it.

    work: what checking the default against its patterns may spend (shared by one template).
    version: the template's (dated) heat_template_version, which decides whether tags exist.
    """
    if not isinstance(spec, Mapping):
        return None, [Problem(path, "a parameter must be a mapping with at least a type")]
    problems = [
        Problem(join_path(path, key), "unknown key; expected one of " + ", ".join(_PARAMETER_KEYS))
        for key in spec
        if key not in _PARAMETER_KEYS
    ]
    type_name = spec.get("type")
    if type_name is None:
        problems.append(Problem(join_path(path, "type"), "is required"))
    elif type_name not in PARAMETER_TYPES:
        problems.append(
            Problem(join_path(path, "type"), f"must be one of {', '.join(PARAMETER_TYPES)}")
        )
    hidden = spec.get("hidden", False)
    if not isinstance(hidden, bool):
        problems.append(Problem(join_path(path, "hidden"), "must be true or false"))
        # Err on the side of secrecy while reporting the other problems.
        hidden = True
    immutable = spec.get("immutable", False)
    if not isinstance(immutable, bool):
        problems.append(Problem(join_path(path, "immutable"), "must be true or false"))
    tags = _tags(spec, path, version, problems)
    texts = {}
    for key in ("label", "description"):
        text = spec.get(key, "")
        if text is None:
            text = ""
        if not isinstance(text, str):
            problems.append(Problem(join_path(path, key), "must be a string"))
        texts[key] = text if isinstance(text, str) else ""
    constraints = []
    raw_constraints = spec.get("constraints") or []
    if not isinstance(raw_constraints, list):
        problems.append(Problem(join_path(path, "constraints"), "must be a list"))
        raw_constraints = []
    for i, raw in enumerate(raw_constraints):
        constraint, more = parse_constraint(
            raw, str(type_name), join_path(join_path(path, "constraints"), i), version=version
        )
        problems.extend(more)
        if constraint is not None:
            constraints.append(constraint)
    if problems:
        return None, problems
    schema = ParameterSchema(
        name=name,
        type=str(type_name),
        hidden=hidden,
        label=texts["label"],
        description=texts["description"],
        constraints=tuple(constraints),
        immutable=immutable is True,
        tags=tags,
    )
    default = spec.get("default")
    if default is None:
        return schema, []
    value, default_problems = check_value(
        schema, default, join_path(path, "default"), PatternWork() if work is None else work
    )
    if default_problems:
        return None, default_problems
    return _with_default(schema, value), []


def _tags(
    spec: Mapping[str, Any], path: str, version: str, problems: list[Problem]
) -> tuple[str, ...]:
    if "tags" not in spec:
        return ()
    tags_path = join_path(path, "tags")
    if version < TAGS_SINCE:
        problems.append(
            Problem(
                tags_path,
                f"parameter tags need heat_template_version {TAGS_SINCE} or later "
                f"(this template is {version})",
            )
        )
        return ()
    raw = spec["tags"]
    if not isinstance(raw, list) or not all(isinstance(tag, str) for tag in raw):
        problems.append(Problem(tags_path, "must be a list of strings"))
        return ()
    return tuple(raw)


def _with_default(schema: ParameterSchema, value: Any) -> ParameterSchema:
    return dataclasses.replace(schema, default=value, has_default=True)


def check_value(
    schema: ParameterSchema,
    value: Any,
    path: str,
    work: PatternWork,
    custom: CustomChecks | None = None,
) -> tuple[Any, list[Problem]]:
    """value coerced to the schema's type, and every way it breaks the schema. Custom
    constraints are checked only with `custom`, and only those it knows."""
    try:
        coerced = coerce(schema.type, value)
    except TypeMismatch as exc:
        return None, [Problem(path, f"{_shown(schema, value)} {exc}")]
    problems = []
    for constraint in schema.constraints:
        if constraint.kind == CUSTOM:
            message = custom_violation(constraint, coerced, custom, hidden=schema.hidden)
        else:
            message = violation(constraint, coerced, work)
        if message is not None:
            problems.append(Problem(path, message))
    return coerced, problems


def default_problems(
    schema: ParameterSchema, path: str, custom: CustomChecks | None
) -> list[Problem]:
    """How the schema's default breaks its custom constraints, at PATH.default. The other
    constraints were checked when the template loaded; custom ones need the checks of the
    request (an `expiration` default may have passed since)."""
    if not schema.has_default or custom is None:
        return []
    problems = []
    for constraint in schema.constraints:
        if constraint.kind == CUSTOM:
            message = custom_violation(constraint, schema.default, custom, hidden=schema.hidden)
            if message is not None:
                problems.append(Problem(join_path(path, "default"), message))
    return problems


def _shown(schema: ParameterSchema, value: Any) -> str:
    if schema.hidden:
        return "the value"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"the value {text}"


def validate_parameters(
    template: Template, values: Mapping[str, Any], custom: CustomChecks | None = None
) -> dict[str, Any]:
    """The effective value of every declared parameter (the pseudo-parameters, which
    `values` may hold, are not checked here: conv_tasks.template.pseudo_parameters). Raises
    ParameterError with every problem. With `custom`, values and defaults are checked against
    the custom constraints it knows (a request); without, custom constraints are not checked
    (a stored stack)."""
    if not isinstance(values, Mapping):
        raise ParameterError([Problem("parameters", "must be a mapping of names to values")])
    problems = [
        Problem(
            join_path("parameters", name),
            suggesting("is not a parameter of this template", name, template.parameters),
        )
        for name in values
        if name not in template.parameters and name not in PSEUDO_PARAMETERS
    ]
    effective: dict[str, Any] = {}
    work = PatternWork()
    for name, schema in template.parameters.items():
        path = join_path("parameters", name)
        value = values.get(name)
        if value is None:
            if schema.has_default:
                effective[name] = schema.default
                problems.extend(default_problems(schema, path, custom))
            else:
                problems.append(Problem(path, "a value is required (there is no default)"))
            continue
        coerced, more = check_value(schema, value, path, work, custom)
        problems.extend(more)
        effective[name] = coerced
    if problems:
        raise ParameterError(problems)
    return effective


def public_parameters(template: Template, values: Mapping[str, Any]) -> dict[str, Any]:
    """values with every hidden parameter's value masked, for display and logs."""
    hidden = template.hidden_parameters()
    return {name: HIDDEN_VALUE if name in hidden else value for name, value in values.items()}
