"""Checks every section of a template shares: keys it does not know, a text field that is
not text, and a `condition` key (on a resource or an output: known since 2016-10-14)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.template.document import join_path
from conv_tasks.template.function_checks import Scope, check_condition
from conv_tasks.template.versions import CONDITIONS_SINCE


def unknown_keys(spec: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> list[Problem]:
    return [
        Problem(join_path(path, key), "unknown key; expected one of " + ", ".join(allowed))
        for key in spec
        if key not in allowed
    ]


def text_field(spec: Mapping[str, Any], key: str, path: str, problems: list[Problem]) -> str:
    value = spec.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append(Problem(join_path(path, key), "must be a string"))
        return ""
    return value


def condition_problems(value: Any, path: str, scope: Scope) -> list[Problem]:
    """Problems with the condition key of a resource or an output."""
    if value is None:
        return []
    if scope.version < CONDITIONS_SINCE:
        return [
            Problem(
                path,
                f"the condition key needs heat_template_version {CONDITIONS_SINCE} or later "
                f"(this template is {scope.version})",
            )
        ]
    return check_condition(value, path, scope)
