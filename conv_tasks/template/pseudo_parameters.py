"""Heat's pseudo-parameters: `OS::stack_name`, `OS::stack_id` and `OS::project_id`.

Every template may `get_param` them without declaring them. Their values are the stack's
own (a nested stack's are the child's), set by the engine when it stores the template's
parameters, never by a request: a request that gives one is refused by name. A definition
built without a stack (`template validate`, the preview of a create) gets placeholders.
This module only names them and their values; it never reads a stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import ParameterError, Problem
from conv_tasks.template.document import join_path

STACK_NAME = "OS::stack_name"
STACK_ID = "OS::stack_id"
PROJECT_ID = "OS::project_id"
PSEUDO_PARAMETERS = frozenset({STACK_NAME, STACK_ID, PROJECT_ID})

# What a template sees before its stack exists: a well-formed id, no real one.
PLACEHOLDERS: Mapping[str, str] = {
    STACK_NAME: "stack",
    STACK_ID: "00000000-0000-0000-0000-000000000000",
    PROJECT_ID: "tenant",
}


@dataclass(frozen=True)
class StackIdentity:
    """The stack the pseudo-parameters describe."""

    name: str
    id: str
    tenant: str

    def values(self) -> dict[str, str]:
        return {STACK_NAME: self.name, STACK_ID: self.id, PROJECT_ID: self.tenant}


def with_identity(values: Mapping[str, Any], identity: StackIdentity) -> dict[str, Any]:
    """`values` with the stack's pseudo-parameters set (replacing any stored before)."""
    return {**values, **identity.values()}


def pseudo_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The pseudo-parameters' values in `values`, a placeholder for each one missing."""
    return {name: values.get(name, PLACEHOLDERS[name]) for name in sorted(PSEUDO_PARAMETERS)}


def without_pseudo(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` without the pseudo-parameters: what the request itself gave or kept."""
    return {name: value for name, value in values.items() if name not in PSEUDO_PARAMETERS}


def refuse_given(values: Mapping[str, Any], section: str = "parameters") -> None:
    """Refuse a request's parameters that name a pseudo-parameter (Heat refuses them too)."""
    given = sorted(name for name in values if name in PSEUDO_PARAMETERS)
    if given:
        raise ParameterError(
            [
                Problem(
                    join_path(section, name),
                    "is a pseudo-parameter: conv_tasks sets it to the stack's own value, "
                    "and a request cannot give it",
                )
                for name in given
            ]
        )
