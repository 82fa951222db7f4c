"""Parameter constraints: reading them from a template and checking values against them.

Messages never contain the value being checked, so they are safe for hidden parameters.
A custom_constraint is checked by whatever CustomChecks the caller hands in (the checkers
of conv_tasks.constraints); this module knows none itself, and a constraint the checks do
not know is passed over here (the engine warns of it, or refuses it when strict).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from conv_tasks.errors import Problem
from conv_tasks.limits import MAX_PATTERN_WORK
from conv_tasks.template.document import join_path
from conv_tasks.template.model import PARAMETER_TYPES, Constraint
from conv_tasks.template.parameter_types import TypeMismatch, coerce
from conv_tasks.template.patterns import PatternRefused, PatternWork, compile_pattern

CUSTOM = "custom_constraint"


class CustomChecks(Protocol):
    """The custom constraints a request is checked with (conv_tasks.constraints)."""

    def knows(self, name: str) -> bool: ...

    def check(self, name: str, value: Any) -> str | None:
        """Why value breaks the known constraint `name`, or None."""


# Which parameter types each kind of constraint can apply to.
APPLIES_TO: dict[str, tuple[str, ...]] = {
    "allowed_values": PARAMETER_TYPES,
    "range": ("number",),
    "length": ("string", "comma_delimited_list", "json"),
    "allowed_pattern": ("string",),
    "modulo": ("number",),
    # As in Heat, which has no custom check of a json parameter.
    CUSTOM: ("string", "number", "comma_delimited_list", "boolean"),
}
# Heat added the modulo constraint in 2017-02-24 (ocata).
MODULO_SINCE = "2017-02-24"


def parse_constraint(
    spec: Any, type_name: str, path: str, *, version: str = MODULO_SINCE
) -> tuple[Constraint | None, list[Problem]]:
    """The constraint spec describes, or the problems with it (version: the template's
    dated heat_template_version, which decides whether modulo exists)."""
    if not isinstance(spec, Mapping):
        return None, [Problem(path, "a constraint must be a mapping such as {range: {min: 1}}")]
    kinds = [key for key in spec if key in APPLIES_TO]
    unknown = [key for key in spec if key not in APPLIES_TO and key != "description"]
    problems = [
        Problem(
            join_path(path, key),
            f"unknown constraint '{key}'; expected one of " + ", ".join(APPLIES_TO),
        )
        for key in unknown
    ]
    description = spec.get("description", "")
    if not isinstance(description, str):
        problems.append(Problem(join_path(path, "description"), "must be a string"))
        description = ""
    if len(kinds) != 1:
        if not unknown:
            problems.append(
                Problem(path, "a constraint must have exactly one of " + ", ".join(APPLIES_TO))
            )
        return None, problems
    kind = kinds[0]
    kind_path = join_path(path, kind)
    if kind == "modulo" and version < MODULO_SINCE:
        return None, [
            *problems,
            Problem(
                kind_path,
                f"the modulo constraint needs heat_template_version {MODULO_SINCE} or later "
                f"(this template is {version})",
            ),
        ]
    # An unknown parameter type is reported elsewhere; don't add a second problem for it.
    if type_name in PARAMETER_TYPES and type_name not in APPLIES_TO[kind]:
        problems.append(
            Problem(
                kind_path,
                f"does not apply to {type_name} parameters; it applies to "
                + ", ".join(APPLIES_TO[kind]),
            )
        )
        return None, problems
    constraint, more = _parse_kind(kind, spec[kind], type_name, kind_path, description)
    return constraint, problems + more


def _parse_kind(
    kind: str, value: Any, type_name: str, path: str, description: str
) -> tuple[Constraint | None, list[Problem]]:
    if kind == "allowed_values":
        return _parse_allowed(value, type_name, path, description)
    if kind == "allowed_pattern":
        if not isinstance(value, str):
            return None, [Problem(path, "must be a regular expression string")]
        try:
            compile_pattern(value)
        except PatternRefused as exc:
            return None, [Problem(path, str(exc))]
        return Constraint(kind, description, pattern=value), []
    if kind == "modulo":
        return _parse_modulo(value, path, description)
    if kind == CUSTOM:
        if not isinstance(value, str) or not value.strip():
            return None, [Problem(path, "must name a constraint (a string such as ip_addr)")]
        return Constraint(kind, description, custom=value), []
    return _parse_bounds(kind, value, path, description)


def _parse_modulo(
    value: Any, path: str, description: str
) -> tuple[Constraint | None, list[Problem]]:
    if not isinstance(value, Mapping):
        return None, [Problem(path, "must be a mapping with step and offset")]
    problems = [
        Problem(join_path(path, key), "unknown key; expected step or offset")
        for key in value
        if key not in ("step", "offset")
    ]
    numbers: dict[str, int] = {}
    for key in ("step", "offset"):
        number = value.get(key)
        if number is None:
            problems.append(Problem(join_path(path, key), "is required"))
        elif (
            isinstance(number, bool) or not isinstance(number, int | float) or number != int(number)
        ):
            problems.append(Problem(join_path(path, key), "must be a whole number"))
        else:
            numbers[key] = int(number)
    if problems:
        return None, problems
    step, offset = numbers["step"], numbers["offset"]
    # Heat's rules: a remainder is smaller than the divisor and has its sign.
    if step == 0:
        problems.append(Problem(join_path(path, "step"), "must not be 0"))
    elif abs(offset) >= abs(step):
        problems.append(Problem(join_path(path, "offset"), "must be smaller than step (in size)"))
    elif step * offset < 0:
        problems.append(Problem(path, "step and offset must have the same sign"))
    if problems:
        return None, problems
    return Constraint("modulo", description, step=step, offset=offset), []


def _parse_allowed(
    value: Any, type_name: str, path: str, description: str
) -> tuple[Constraint | None, list[Problem]]:
    if not isinstance(value, list) or not value:
        return None, [Problem(path, "must be a non-empty list")]
    item_type = "string" if type_name == "comma_delimited_list" else type_name
    allowed = []
    problems = []
    for i, item in enumerate(value):
        if item_type == "json":
            allowed.append(item)
            continue
        try:
            allowed.append(coerce(item_type, item))
        except TypeMismatch as exc:
            problems.append(Problem(join_path(path, i), f"the allowed value {exc}"))
    if problems:
        return None, problems
    return Constraint("allowed_values", description, allowed_values=tuple(allowed)), []


def _parse_bounds(
    kind: str, value: Any, path: str, description: str
) -> tuple[Constraint | None, list[Problem]]:
    if not isinstance(value, Mapping) or not value:
        return None, [Problem(path, "must be a mapping with min and/or max")]
    problems = [
        Problem(join_path(path, key), "unknown key; expected min or max")
        for key in value
        if key not in ("min", "max")
    ]
    bounds: dict[str, float | None] = {"min": None, "max": None}
    for key in ("min", "max"):
        bound = value.get(key)
        if bound is None:
            continue
        if kind == "length":
            if isinstance(bound, bool) or not isinstance(bound, int) or bound < 0:
                problems.append(Problem(join_path(path, key), "must be a whole number, 0 or more"))
                continue
        elif isinstance(bound, bool) or not isinstance(bound, int | float):
            problems.append(Problem(join_path(path, key), "must be a number"))
            continue
        bounds[key] = bound
    low, high = bounds["min"], bounds["max"]
    if low is not None and high is not None and low > high:
        problems.append(Problem(path, "min must not be greater than max"))
    if problems:
        return None, problems
    return Constraint(kind, description, min=low, max=high), []


def violation(constraint: Constraint, value: Any, work: PatternWork) -> str | None:
    """Why a value (already of the parameter's type) breaks the constraint, or None.

    Pattern checks are charged to work, shared by every check of one request.
    """
    message = _violation(constraint, value, work)
    if message is not None and constraint.description:
        message = f"{message} ({constraint.description})"
    return message


def custom_violation(
    constraint: Constraint, value: Any, checks: CustomChecks | None, *, hidden: bool
) -> str | None:
    """Why a value breaks a custom constraint, or None: also when nobody checks it (no
    checks given, or none for its name). Each item of a list is checked on its own. The
    checker's reason is left out for a hidden parameter, lest it quote the value."""
    name = constraint.custom
    if checks is None or not checks.knows(name):
        return None
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        reason = checks.check(name, item)
        if reason is None:
            continue
        subject = f"item {index} of the value" if isinstance(value, list) else "the value"
        message = f"{subject} does not pass the custom constraint '{name}'"
        if not hidden:
            message = f"{message}: {reason}"
        if constraint.description:
            message = f"{message} ({constraint.description})"
        return message
    return None


def _violation(constraint: Constraint, value: Any, work: PatternWork) -> str | None:
    if constraint.kind == "allowed_values":
        allowed = constraint.allowed_values
        choices = ", ".join(json.dumps(item, default=str) for item in allowed)
        if isinstance(value, list) and all(not isinstance(a, list) for a in allowed):
            if all(item in allowed for item in value):
                return None
            return f"every item must be one of {choices}"
        return None if value in allowed else f"the value must be one of {choices}"
    if constraint.kind == "allowed_pattern":
        pattern = constraint.pattern or ""
        matched = work.full_match(pattern, value) if isinstance(value, str) else False
        if matched is None:
            return (
                "the value was not checked against its pattern: the pattern checks of this "
                f"request would pass the limit of {MAX_PATTERN_WORK} steps (MAX_PATTERN_WORK)"
            )
        return None if matched else f"the value must match the pattern {pattern!r}"
    if constraint.kind == "range":
        return _outside(value, constraint, "the value must be")
    if constraint.kind == "length":
        return _outside(len(value), constraint, "the length must be")
    if constraint.kind == "modulo" and constraint.step:
        if value % constraint.step == constraint.offset:
            return None
        return f"the value must leave {constraint.offset} when divided by {constraint.step}"
    return None


def _outside(number: float, constraint: Constraint, subject: str) -> str | None:
    low, high = constraint.min, constraint.max
    if (low is None or number >= low) and (high is None or number <= high):
        return None
    if low is not None and high is not None:
        return f"{subject} between {low} and {high}"
    if low is not None:
        return f"{subject} at least {low}"
    return f"{subject} at most {high}"
