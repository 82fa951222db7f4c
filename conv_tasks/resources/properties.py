"""Preparing one resource's properties for an action: the runtime path.

Resolved values in; translated (the type's rules), checked and coerced against its schema
with defaults filled, then the type's properties_problems (which span several properties);
or one InvalidInput listing every problem. No side effects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.sdk import InvalidInput, ResourceType, check_values, translate


def prepare_properties(
    resource_type: type[ResourceType], values: Mapping[str, Any], *, path: str
) -> dict[str, Any]:
    """Translate, validate and fill defaults. Raises InvalidInput(what="properties")."""
    translated = translate(values, resource_type().translation_rules(), path=path)
    schema = resource_type.properties_schema
    if schema is None:
        return translated
    checked = check_values(schema, translated, path=path)
    problems = resource_type.properties_problems(checked, path=path)
    if problems:
        raise InvalidInput(problems, what="properties")
    return checked
