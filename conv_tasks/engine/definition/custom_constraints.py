"""Custom constraints nobody provides: a warning with the request's answer, or a refusal.

Heat asks an OpenStack service whether a value passes `custom_constraint: nova.flavor`;
conv_tasks checks the constraints its checkers know (conv_tasks.constraints) and lets a
template name one it does not know: such a parameter's values are not checked, and the
answer says so, naming the parameter and the constraint. With CONV_TASKS_STRICT_CONSTRAINTS
the template is refused instead. Decided once per request; a stored stack's definition is
rebuilt without these checks (what was accepted stays accepted).
"""

from __future__ import annotations

from conv_tasks.constraints import ConstraintCheckers
from conv_tasks.errors import Problem
from conv_tasks.template import CUSTOM, Template, join_path

STRICT_SETTING = "CONV_TASKS_STRICT_CONSTRAINTS"


def unchecked_constraints(
    template: Template, checkers: ConstraintCheckers
) -> tuple[list[Problem], list[str]]:
    """(problems, warnings) for each custom constraint of the template's parameters that
    no checker provides: problems when checkers are strict, else warnings."""
    problems: list[Problem] = []
    warnings: list[str] = []
    for name, schema in template.parameters.items():
        path = join_path("parameters", name)
        for index, constraint in enumerate(schema.constraints):
            if constraint.kind != CUSTOM or checkers.knows(constraint.custom):
                continue
            if checkers.strict:
                where = join_path(join_path(join_path(path, "constraints"), index), CUSTOM)
                problems.append(
                    Problem(
                        where,
                        f"no checker for the custom constraint '{constraint.custom}' is "
                        f"installed, and {STRICT_SETTING} refuses a constraint that cannot "
                        "be checked",
                    )
                )
            else:
                warnings.append(
                    f"{path}: the custom constraint '{constraint.custom}' has no checker "
                    "here, so its values are not checked (a package can provide one; "
                    f"{STRICT_SETTING}=1 refuses such templates)"
                )
    return problems, warnings
