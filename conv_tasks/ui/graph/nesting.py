"""Which resources own a nested stack, and what is in it.

conv_tasks.stack.resources with nested_depth N lists the stack's own resources and then its
nested stacks' (N levels down), each naming the stack it is in (`stack_id`). A nested stack
resource (OS::Heat::Stack, a provider template, an OS::Heat::ResourceGroup and its members)
has the id of the stack it owns as its physical id: that is the only link needed, so a
group's members and a nested stack's resources are found the same way. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from conv_tasks.ui.graph.families import FAMILY_ORDER, Family, family_of
from conv_tasks.ui.graph.inputs import ResourceInfo


@dataclass(frozen=True)
class NestedStacks:
    """The stack's own resources by name, and the members of each nested stack by its id."""

    top: Mapping[str, ResourceInfo]
    stacks: Mapping[str, tuple[ResourceInfo, ...]] = field(default_factory=dict)

    def members(self, resource: ResourceInfo | None) -> tuple[ResourceInfo, ...]:
        """The resources of the stack `resource` owns; () when it owns none (or none was
        read, or that stack has no resources yet)."""
        if resource is None or resource.physical_id is None:
            return ()
        return self.stacks.get(resource.physical_id, ())


def nest(resources: tuple[ResourceInfo, ...]) -> NestedStacks:
    """Sort the resources into the top stack's and each nested stack's."""
    owned = {r.physical_id for r in resources if r.physical_id}
    # The top stack is the one no resource owns; conv_tasks.stack.resources lists it first.
    top_id = next((r.stack_id for r in resources if r.stack_id not in owned), None)
    top: dict[str, ResourceInfo] = {}
    stacks: dict[str, list[ResourceInfo]] = {}
    for r in resources:
        if r.stack_id == top_id or r.stack_id is None:
            top.setdefault(r.name, r)
        else:
            stacks.setdefault(r.stack_id, []).append(r)
    return NestedStacks(top=top, stacks={k: tuple(v) for k, v in stacks.items()})


def counts(members: tuple[ResourceInfo, ...]) -> tuple[tuple[Family, int], ...]:
    """How many members are in each family, in FAMILY_ORDER, without the empty ones."""
    seen: dict[Family, int] = {}
    for m in members:
        family = family_of(m.status)
        seen[family] = seen.get(family, 0) + 1
    return tuple((family, seen[family]) for family in FAMILY_ORDER if family in seen)


def counts_text(members: tuple[ResourceInfo, ...]) -> str:
    """`12: 10 complete, 2 failed`."""
    listed = ", ".join(f"{n} {family}" for family, n in counts(members))
    return f"{len(members)}: {listed}"
