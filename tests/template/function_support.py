"""Helpers for the function tests: load a one-resource template and evaluate a value."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.template import ResourceData, load_template, resolve_resource


def document(value: Any, version: str, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "heat_template_version": version,
        "parameters": {name: {"type": "json"} for name in parameters or {}},
        "resources": {"other": {"type": "T"}, "r": {"type": "T", "properties": {"v": value}}},
    }


def evaluate(
    value: Any,
    version: str = "2018-08-31",
    parameters: dict[str, Any] | None = None,
    inputs: dict[str, ResourceData] | None = None,
) -> Any:
    """The value of `value` as the property of a resource, at a template version."""
    template = load_template(document(value, version, parameters))
    resolved = resolve_resource(template, "r", parameters or {}, inputs or {})
    return resolved.properties["v"]


def load_problems(value: Any, version: str = "2018-08-31") -> list[str]:
    with pytest.raises(TemplateError) as info:
        load_template(document(value, version, {"p": 1}))
    return [str(p) for p in info.value.problems]


def evaluation_problems(
    value: Any, version: str = "2018-08-31", parameters: dict[str, Any] | None = None
) -> list[str]:
    template = load_template(document(value, version, parameters))
    with pytest.raises(TemplateError) as info:
        resolve_resource(template, "r", parameters or {}, {})
    return [str(p) for p in info.value.problems]
