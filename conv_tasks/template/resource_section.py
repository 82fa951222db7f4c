"""One resource of a template's `resources` section, checked: its keys, type, properties,
metadata and update_policy (mappings, their functions checked), depends_on (names of the
template's resources), deletion_policy, condition and external_id (the id of an object to
adopt, which names no other resource). Every problem is collected; nothing is evaluated.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.suggestions import suggesting
from conv_tasks.template.document import join_path
from conv_tasks.template.function_checks import Scope, check_functions
from conv_tasks.template.functions import function_call, references
from conv_tasks.template.model import DELETION_POLICIES, ResourceSnippet
from conv_tasks.template.section_checks import condition_problems, text_field, unknown_keys
from conv_tasks.template.versions import CONDITIONS_SINCE

RESOURCE_KEYS = (
    "type",
    "properties",
    "depends_on",
    "metadata",
    "deletion_policy",
    "update_policy",
    "description",
    "condition",
    "external_id",
)
# Heat's HOT added external_id with 2016-10-14, as it did conditions.
EXTERNAL_ID_SINCE = CONDITIONS_SINCE


def resource_snippet(
    name: str, spec: Any, scope: Scope, problems: list[Problem]
) -> ResourceSnippet | None:
    path = join_path("resources", name)
    if not isinstance(spec, Mapping):
        problems.append(Problem(path, "a resource must be a mapping with at least a type"))
        return None
    found = unknown_keys(spec, RESOURCE_KEYS, path)
    type_name = spec.get("type")
    if not isinstance(type_name, str) or not type_name:
        reason = "is required" if type_name is None else "must be a non-empty string"
        found.append(Problem(join_path(path, "type"), reason))
    sections = {}
    for key in ("properties", "metadata", "update_policy"):
        value = spec.get(key)
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            found.append(Problem(join_path(path, key), "must be a mapping"))
            value = {}
        sections[key] = value
    depends_on = _depends_on(name, spec.get("depends_on"), scope, join_path(path, "depends_on"))
    found.extend(p for p in depends_on if isinstance(p, Problem))
    policy = _deletion_policy(spec.get("deletion_policy", "Delete"), scope.version)
    if policy not in DELETION_POLICIES:
        found.append(
            Problem(join_path(path, "deletion_policy"), "must be " + " or ".join(DELETION_POLICIES))
        )
    text_field(spec, "description", path, found)  # accepted, as Heat does, and not kept
    condition = spec.get("condition")
    found.extend(condition_problems(condition, join_path(path, "condition"), scope))
    owner_scope = Scope(
        scope.version, scope.parameters, scope.resources, owner=name, conditions=scope.conditions
    )
    for key, value in sections.items():
        found.extend(check_functions(value, join_path(path, key), owner_scope))
    external_id = spec.get("external_id")
    found.extend(_external_id(external_id, join_path(path, "external_id"), owner_scope))
    problems.extend(found)
    if found:
        return None
    return ResourceSnippet(
        name=name,
        type=str(type_name),
        properties=copy.deepcopy(dict(sections["properties"])),
        depends_on=tuple(dict.fromkeys(d for d in depends_on if isinstance(d, str))),
        metadata=copy.deepcopy(dict(sections["metadata"])),
        deletion_policy=str(policy),
        update_policy=copy.deepcopy(dict(sections["update_policy"])),
        condition=copy.deepcopy(condition),
        external_id=copy.deepcopy(external_id),
    )


def _external_id(value: Any, path: str, scope: Scope) -> list[Problem]:
    """Problems with a resource's external_id: the id of an object to adopt, a string or a
    function giving one (get_param), that names no other resource (an adopted object does not
    wait for anything, as in Heat)."""
    if value is None:
        return []
    if scope.version < EXTERNAL_ID_SINCE:
        return [
            Problem(
                path,
                f"the external_id key needs heat_template_version {EXTERNAL_ID_SINCE} or later "
                f"(this template is {scope.version})",
            )
        ]
    if function_call(value) is None:
        if isinstance(value, str) and value:
            return []
        return [Problem(path, "must be a non-empty string (the id of the object to adopt)")]
    found = check_functions(value, path, scope)
    if not found and any(True for _ in references(value)):
        found.append(
            Problem(
                path,
                "must not refer to another resource (get_resource, get_attr): the object it "
                "names exists before the stack does",
            )
        )
    return found


def _deletion_policy(value: Any, version: str) -> Any:
    """The policy in its capitalised form: 2016-10-14 added lower-case aliases."""
    if version >= "2016-10-14" and value in ("delete", "retain"):
        return value.capitalize()
    return value


def _depends_on(name: str, value: Any, scope: Scope, path: str) -> list[str | Problem]:
    """The names depended on, mixed with the problems found (callers separate them)."""
    if value is None:
        return []
    if isinstance(value, str):
        items: list[Any] = [value]
        paths = [path]
    elif isinstance(value, list):
        items = value
        paths = [join_path(path, i) for i in range(len(value))]
    else:
        return [Problem(path, "must be a resource name or a list of resource names")]
    result: list[str | Problem] = []
    for item, item_path in zip(items, paths, strict=True):
        if not isinstance(item, str):
            result.append(Problem(item_path, "must be a resource name"))
        elif item == name:
            result.append(Problem(item_path, f"resource '{name}' cannot depend on itself"))
        elif item not in scope.resources:
            message = f"resource '{item}' is not defined in the template"
            result.append(Problem(item_path, suggesting(message, item, scope.resources)))
        else:
            result.append(item)
    return result
