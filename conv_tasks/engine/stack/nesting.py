"""Nested stacks, the pure part: a child's name, its place, and the refusals.

A nested stack is a real stack made by a resource of its parent. These rules say what it
is called and how deep it may sit; nothing here reads or writes
anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conv_tasks.errors import Conflict, NotSupported
from conv_tasks.limits import MAX_NAME_CHARS, MAX_NESTING_DEPTH
from conv_tasks.resources import token_physical_id

_NOT_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
SHORT_ID_CHARS = 12


@dataclass(frozen=True)
class Nesting:
    """Where a child stack sits: its parent stack, the parent's resource, its depth (1 for
    the child of a stack a user made)."""

    parent_stack_id: str
    parent_resource: str
    depth: int


def child_stack_name(parent_name: str, resource_name: str, token: str) -> str:
    """`<parent>-<resource>-<short id>` as Heat names them; the short id comes from the
    parent action's token, so a step run twice names the same child. Characters a stack
    name may not hold become '-'."""
    short = token_physical_id(token).replace("-", "")[:SHORT_ID_CHARS]
    resource = _NOT_NAME.sub("-", resource_name) or "resource"
    head = f"{parent_name}-{resource}"[: MAX_NAME_CHARS - SHORT_ID_CHARS - 1]
    return f"{head}-{short}"


def nesting_of_child(
    parent_stack_id: str, parent_name: str, parent_depth: int, resource_name: str
) -> Nesting:
    """The child's place under its parent; NotSupported past MAX_NESTING_DEPTH."""
    depth = parent_depth + 1
    if depth > MAX_NESTING_DEPTH:
        raise NotSupported(
            f"Resource {resource_name} of stack {parent_name!r}: nested stacks may be at most "
            f"{MAX_NESTING_DEPTH} deep (MAX_NESTING_DEPTH); this one would be {depth} deep "
            "(does a template include itself?)."
        )
    return Nesting(parent_stack_id, resource_name, depth)


def refuse_direct_change(stack_name: str, parent_name: str, parent_resource: str | None) -> None:
    """A nested stack changes only through its live parent: a user's update, delete,
    rollback or cancel of it is refused, naming the parent."""
    parent = repr(parent_name)
    raise Conflict(
        f"Stack {stack_name!r} is nested in stack {parent} (resource {parent_resource}); "
        f"it can be changed or deleted only through {parent}."
    )
