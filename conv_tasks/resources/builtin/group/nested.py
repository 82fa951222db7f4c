"""The template of a ResourceGroup's child stack, generated from resource_def.

Each member is resource_def with index_var replaced by the member's name in
every string of its properties, at any depth (map keys and metadata are left
as written, as in Heat). The child template also carries outputs from which
the group reads its members' references and attributes back
(members_from_outputs), so the group never looks inside the child stack.
Pure: dicts in, dicts out; it never resolves functions or loads a stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conv_tasks.resources.builtin.group.properties import MemberDefinition
from conv_tasks.sdk import MemberData

# The version Heat writes group templates in; every function a member may use is in it.
CHILD_TEMPLATE_VERSION = "2015-04-30"

REFS_OUTPUT = "refs_map"
# One output per member attribute the group needs: ATTRIBUTE_OUTPUT + attribute name.
ATTRIBUTE_OUTPUT = "member_attribute."


def substitute_index(value: Any, index_var: str, name: str) -> Any:
    """value with every occurrence of index_var in its strings replaced by name."""
    if isinstance(value, str):
        return value.replace(index_var, name)
    if isinstance(value, Mapping):
        return {key: substitute_index(item, index_var, name) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [substitute_index(item, index_var, name) for item in value]
    return value


def member_definition(definition: MemberDefinition, name: str, index_var: str) -> dict[str, Any]:
    """The child template's resource for member name: comparable with ==, so that a rolling
    update can tell members that already have it from those that do not."""
    resource: dict[str, Any] = {"type": definition.type}
    if definition.properties:
        resource["properties"] = substitute_index(dict(definition.properties), index_var, name)
    if definition.metadata is not None:
        resource["metadata"] = _copy(definition.metadata)
    return resource


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(item) for item in value]
    return value


def child_template(
    resources: Sequence[tuple[str, Mapping[str, Any]]],
    member_attributes: Iterable[str] = (),
) -> dict[str, Any]:
    """A HOT template of these (name, resource) members, with the outputs the group reads:
    every member's reference, and each of member_attributes of every member."""
    names = [name for name, _ in resources]
    outputs: dict[str, Any] = {
        REFS_OUTPUT: {"value": {name: {"get_resource": name} for name in names}}
    }
    for attribute in dict.fromkeys(member_attributes):
        outputs[ATTRIBUTE_OUTPUT + attribute] = {
            "value": {name: {"get_attr": [name, attribute]} for name in names}
        }
    return {
        "heat_template_version": CHILD_TEMPLATE_VERSION,
        "resources": {name: _copy(resource) for name, resource in resources},
        "outputs": outputs,
    }


def group_template(
    definition: MemberDefinition,
    names: Sequence[str],
    index_var: str,
    member_attributes: Iterable[str] = (),
) -> dict[str, Any]:
    """The child template of a group whose members are names, all with the current definition."""
    return child_template(
        [(name, member_definition(definition, name, index_var)) for name in names],
        member_attributes,
    )


def members_from_outputs(outputs: Mapping[str, Any]) -> dict[str, MemberData]:
    """Each member's data from the child stack's output values (output name -> value)."""
    refs = outputs.get(REFS_OUTPUT) or {}
    attributes: dict[str, dict[str, Any]] = {name: {} for name in refs}
    for output, values in outputs.items():
        if not output.startswith(ATTRIBUTE_OUTPUT) or not isinstance(values, Mapping):
            continue
        attribute = output[len(ATTRIBUTE_OUTPUT) :]
        for name, value in values.items():
            attributes.setdefault(name, {})[attribute] = value
    return {
        name: MemberData(name, refs.get(name), member_attributes)
        for name, member_attributes in attributes.items()
    }
