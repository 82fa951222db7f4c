"""get_attr into a provider template's child stack: Heat's resource.NAME and resource.NAME.ATTR.

On a resource implemented by a provider template, Heat reads these names from the child:

- resource.NAME: the reference of the child's resource NAME (get_resource NAME there);
- resource.NAME.ATTR, and resource.NAME followed by ATTR in the path: its attribute ATTR,
  the rest of the path selecting inside it. ATTR is everything after the second dot, so
  resource.inner.resource.x reads resource.x of a provider resource nested one level down.

The parent never looks into the child: the child's template carries one output per name
the parent reads (nested_outputs), under the name itself, and the parent reads it like any
other output. Pure: names and references in, names and output definitions out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from conv_tasks.suggestions import did_you_mean

NESTED_PREFIX = "resource."

PathItem = str | int


def nested_key(attribute: str) -> tuple[str, str | None] | None:
    """(resource name, attribute or None) for resource.NAME and resource.NAME.ATTR; None for
    any other attribute name."""
    if not attribute.startswith(NESTED_PREFIX):
        return None
    parts = attribute.split(".", 2)
    return parts[1], (parts[2] if len(parts) == 3 else None)


def nested_attribute(attribute: str, path: Sequence[Any]) -> tuple[str, tuple[Any, ...]]:
    """The attribute that holds get_attr [res, attribute, *path] and the path left to apply
    inside it: resource.NAME with ATTR first in the path is resource.NAME.ATTR (Heat reads
    both as NAME's ATTR). Any other reference is as given."""
    key = nested_key(attribute)
    if key is None or key[1] is not None or not path:
        return attribute, tuple(path)
    first = path[0]
    if isinstance(first, bool) or not isinstance(first, str | int):
        return attribute, tuple(path)
    return f"{attribute}.{first}", tuple(path[1:])


def nested_outputs(
    references: Iterable[tuple[str, Sequence[Any]]], resources: Collection[str]
) -> dict[str, dict[str, Any]]:
    """The outputs a provider template's child must carry for these get_attr references
    (attribute, literal path) to its parent resource: output name -> definition, sorted by
    name. resource.NAME gives NAME's reference, resource.NAME.ATTR its attribute ATTR. A
    name that is not one of the child's `resources` gets none (validate refuses it)."""
    outputs: dict[str, dict[str, Any]] = {}
    for attribute, path in references:
        name = nested_attribute(attribute, path)[0]
        key = nested_key(name)
        if key is None or key[0] not in resources:
            continue
        resource, inner = key
        value = {"get_resource": resource} if inner is None else {"get_attr": [resource, inner]}
        outputs[name] = {"value": value}
    return dict(sorted(outputs.items()))


def nested_problem(attribute: str, resources: Collection[str], template: str) -> str | None:
    """Why get_attr [res, attribute] can never have a value on a resource of the provider
    template `template` whose resources are `resources`, as a sentence; None if it can."""
    key = nested_key(attribute)
    if key is None:
        return None
    name = key[0]
    if not name:
        return f"{attribute!r} names no resource; use resource.NAME or resource.NAME.ATTRIBUTE."
    if key[1] == "":
        return f"{attribute!r} names no attribute after the resource {name!r}."
    if name in resources:
        return None
    known = did_you_mean(name, resources) or (
        f"its resources: {', '.join(sorted(resources)) or 'none'}"
    )
    return f"the provider template {template} has no resource {name!r}; {known}"
