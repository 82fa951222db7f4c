"""Schemas of resource-type properties and attributes, and property constraints.

These are declarations: a plugin states what its properties look like and
properties.py checks values against them. A schema that is itself malformed
(an unknown type, a constraint with the wrong arguments) is a bug in the
plugin and is refused when the schema is built. Nothing here touches values
of a real stack.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.sdk.support import SupportStatus

# The types of properties and attributes. A template's YAML often gives a scalar as a string:
# the scalar types accept its obvious string forms (conv_tasks.sdk.coercion), and a step
# sees the converted value.
STRING = "string"
"""A string; a number or a boolean given for it becomes its text ("3", "true")."""
INTEGER = "integer"
"""A whole number; a string of one ("3") and a float with no fraction (3.0) are taken."""
NUMBER = "number"
"""An int or a float, finite; a string of one ("2.5") is taken."""
BOOLEAN = "boolean"
"""True or false; the strings "true" and "false" (any case) are taken."""
LIST = "list"
"""A list (`PropertySchema.schema` may give its items' schema)."""
MAP = "map"
"""A mapping (`PropertySchema.schema` may give its sub-properties)."""
ANY = "any"
"""Any value, unchecked and unconverted."""
TYPES = (STRING, INTEGER, NUMBER, BOOLEAN, LIST, MAP, ANY)

ALLOWED_VALUES = "allowed_values"
RANGE = "range"
LENGTH = "length"
ALLOWED_PATTERN = "allowed_pattern"
CONSTRAINT_KINDS = (ALLOWED_VALUES, RANGE, LENGTH, ALLOWED_PATTERN)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Constraint:
    """One rule a property value must follow.

    args by kind: allowed_values -> tuple of values; range and length ->
    (min, max), either may be None; allowed_pattern -> a regular expression
    the whole value must match.
    """

    kind: str
    args: Any
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind == ALLOWED_VALUES and isinstance(self.args, tuple):
            # An enum member counts as its value: messages and schemas then show the word a
            # template writes (SUSPEND), never Python's <DeployAction.SUSPEND: 'SUSPEND'>.
            plain = tuple(v.value if isinstance(v, Enum) else v for v in self.args)
            object.__setattr__(self, "args", plain)
        reason = self._args_problem()
        if reason:
            raise InvalidInput([Problem(f"constraints.{self.kind}", reason)], what="schema")

    def _args_problem(self) -> str | None:
        if self.kind not in CONSTRAINT_KINDS:
            return f"unknown constraint kind; use one of {', '.join(CONSTRAINT_KINDS)}."
        if self.kind == ALLOWED_VALUES:
            if not isinstance(self.args, tuple) or not self.args:
                return "allowed_values needs a non-empty tuple of values."
            return None
        if self.kind in (RANGE, LENGTH):
            if not isinstance(self.args, tuple) or len(self.args) != 2:
                return f"{self.kind} needs a (min, max) pair."
            low, high = self.args
            if any(bound is not None and not _is_number(bound) for bound in self.args):
                return f"{self.kind} bounds must be numbers or None."
            if low is None and high is None:
                return f"{self.kind} needs at least one bound."
            if low is not None and high is not None and low > high:
                return f"{self.kind} minimum {low} is greater than its maximum {high}."
            return None
        if not isinstance(self.args, str):
            return "allowed_pattern needs a regular expression string."
        try:
            re.compile(self.args)
        except re.error as exc:
            return f"allowed_pattern {self.args!r} is not a valid regular expression: {exc}."
        return None

    @classmethod
    def allowed_values(cls, *values: Any, description: str = "") -> Constraint:
        """The value must be one of `values`. `description`, when given, is what a value
        that breaks it is told instead of the constraint's own sentence."""
        return cls(ALLOWED_VALUES, tuple(values), description)

    @classmethod
    def range(
        cls, min: float | None = None, max: float | None = None, *, description: str = ""
    ) -> Constraint:
        """A number between `min` and `max`, both included (either may be None: no bound)."""
        return cls(RANGE, (min, max), description)

    @classmethod
    def length(
        cls, min: int | None = None, max: int | None = None, *, description: str = ""
    ) -> Constraint:
        """A string, list or map with `min` to `max` characters or items, both included."""
        return cls(LENGTH, (min, max), description)

    @classmethod
    def allowed_pattern(cls, pattern: str, *, description: str = "") -> Constraint:
        """A string that `pattern`, a regular expression (Python's `re`), matches whole."""
        return cls(ALLOWED_PATTERN, pattern, description)

    def violation(self, value: Any) -> str | None:
        """Why value breaks this constraint, as a sentence; None when it does not.

        A constraint that does not apply to the value's type (a range on a
        string) is not broken: the type check reports such values.
        """
        reason = self._violation(value)
        if reason is None:
            return None
        return f"{self.description} (got {value!r})" if self.description else reason

    def _violation(self, value: Any) -> str | None:
        if self.kind == ALLOWED_VALUES:
            if value in self.args:
                return None
            allowed = ", ".join(repr(v) for v in self.args)
            return f"must be one of {allowed}, not {value!r}."
        if self.kind == RANGE:
            if not _is_number(value):
                return None
            return _bounds_problem(value, self.args, "must be", value)
        if self.kind == LENGTH:
            if not isinstance(value, str | list | tuple | Mapping):
                return None
            return _bounds_problem(len(value), self.args, "must have a length", len(value))
        if not isinstance(value, str):
            return None
        if re.fullmatch(self.args, value):
            return None
        return f"must match the pattern {self.args!r}; {value!r} does not."

    def to_dict(self) -> dict[str, Any]:
        args = list(self.args) if isinstance(self.args, tuple) else self.args
        return {"kind": self.kind, "args": args, "description": self.description}


def _bounds_problem(measured: float, bounds: tuple[Any, Any], lead: str, got: object) -> str | None:
    """lead is "must be" (a range) or "must have a length" (a length)."""
    low, high = bounds
    if (low is None or measured >= low) and (high is None or measured <= high):
        return None
    of = "" if lead == "must be" else " of"
    if low is not None and high is not None:
        return f"{lead} between {low} and {high}; got {got}."
    if low is not None:
        return f"{lead}{of} at least {low}; got {got}."
    return f"{lead}{of} at most {high}; got {got}."


@dataclass(frozen=True)
class PropertySchema:
    """What one property accepts, and whether a change of it is made in place.

    A schema that is itself malformed (an unknown type, a sub-schema on a scalar) is refused
    with InvalidInput when it is built.
    """

    type: str
    """One of STRING, INTEGER, NUMBER, BOOLEAN, LIST, MAP, ANY."""
    description: str = ""
    """What the property is, for `resource-type show` and the docs."""
    required: bool = False
    """A template must give a value (or the property must have a default)."""
    default: Any = None
    """The value when the template gives none (or null); None: no default, and the step sees
    None."""
    constraints: tuple[Constraint, ...] = ()
    """Rules the value must follow, checked after it is converted to `type`."""
    update_allowed: bool = False
    """True: a change of this property is made in place (`update`). False, the default: a
    change of it replaces the resource (a new object is made, then the old one deleted)."""
    immutable: bool = False
    """True: the value never changes in place; a change replaces the resource, even if
    update_allowed says otherwise."""
    schema: Mapping[str, PropertySchema] | PropertySchema | None = None
    """For MAP, the sub-properties (a mapping of name to schema, checked like properties); for
    LIST, the schema of every item (a mapping is shorthand for items that are maps with those
    sub-properties). None: the contents are not checked."""
    support_status: SupportStatus = field(default_factory=SupportStatus)
    """Whether the property may be used (a DEPRECATED one is warned about, a HIDDEN one is
    left out of `resource-type show`)."""

    def __post_init__(self) -> None:
        problems: list[Problem] = []
        if self.type not in TYPES:
            problems.append(
                Problem("type", f"{self.type!r} is not a property type; use one of {TYPES}.")
            )
        if not isinstance(self.constraints, tuple) or not all(
            isinstance(c, Constraint) for c in self.constraints
        ):
            problems.append(Problem("constraints", "must be a tuple of Constraint."))
        if self.schema is not None:
            if self.type == LIST and isinstance(self.schema, Mapping):
                # Items that are maps with these sub-properties: keep one shape inside.
                object.__setattr__(self, "schema", PropertySchema(MAP, schema=self.schema))
            elif self.type == LIST and not isinstance(self.schema, PropertySchema):
                problems.append(Problem("schema", "a list's schema must be a PropertySchema."))
            elif self.type == MAP and not (
                isinstance(self.schema, Mapping)
                and all(isinstance(s, PropertySchema) for s in self.schema.values())
            ):
                problems.append(
                    Problem("schema", "a map's schema must map names to PropertySchema.")
                )
            elif self.type not in (LIST, MAP):
                problems.append(Problem("schema", f"a {self.type} property has no sub-schema."))
        if (
            self.type == NUMBER
            and isinstance(self.default, float)
            and not math.isfinite(self.default)
        ):
            problems.append(Problem("default", "must be a finite number."))
        if problems:
            raise InvalidInput(problems, what="schema")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description for resource-type show. HIDDEN sub-properties are left out."""
        data: dict[str, Any] = {
            "type": self.type,
            "description": self.description,
            "required": self.required,
            "default": self.default,
            "update_allowed": self.update_allowed,
            "immutable": self.immutable,
            "constraints": [c.to_dict() for c in self.constraints],
            "support_status": self.support_status.to_dict(),
        }
        if isinstance(self.schema, PropertySchema):
            data["schema"] = self.schema.to_dict()
        elif isinstance(self.schema, Mapping):
            data["schema"] = visible_schemas(self.schema)
        return data


@dataclass(frozen=True)
class AttributeSchema:
    """One attribute a resource exposes through get_attr."""

    description: str = ""
    """What the attribute is, for `resource-type show` and the docs."""
    type: str = ANY
    """The type of its value, as properties name them; described, not checked."""
    support_status: SupportStatus = field(default_factory=SupportStatus)
    """Whether the attribute may be used."""

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise InvalidInput(
                [Problem("type", f"{self.type!r} is not an attribute type; use one of {TYPES}.")],
                what="schema",
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "type": self.type,
            "support_status": self.support_status.to_dict(),
        }


def visible_schemas(
    schemas: Mapping[str, PropertySchema | AttributeSchema],
) -> dict[str, dict[str, Any]]:
    """to_dict of every schema that is not HIDDEN (hidden things stay out of documentation)."""
    return {
        name: schema.to_dict()
        for name, schema in sorted(schemas.items())
        if not schema.support_status.hidden
    }
