"""The entries of a preview and the report they make: one entry per resource (its action,
why, the properties that differ, what is uncertain, the real object's state, its nested
stack's entries), their counts and the one-line summary. Pure: values in, values out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CREATE, UPDATE, REPLACE, DELETE, UNCHANGED = "create", "update", "replace", "delete", "unchanged"
ACTIONS = (CREATE, UPDATE, REPLACE, DELETE, UNCHANGED)
# A change's marker in place of its old and new values, which derive from a hidden value.
HIDDEN_CHANGE = "hidden"
# The reason of a create that adopts an existing object instead (its id is not shown: a
# hidden parameter may give it).
ADOPTS = "adopts an existing object (external_id) instead of creating one"


def resource_entry(
    name: str,
    type_name: str,
    action: str,
    reason: str = "",
    changes: dict[str, Any] | None = None,
    uncertain: str | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "type": type_name,
        "action": action,
        "reason": reason,
        "changes": changes or {},
        "uncertain": uncertain,
        "reality": None,
        "nested_stack": None,
        "nested": [],
    }


def summary(counts: Mapping[str, int]) -> str:
    """ "2 to create, 1 to update, 1 to replace, 1 to delete, 3 unchanged"."""
    parts = [f"{counts.get(a, 0)} to {a}" for a in (CREATE, UPDATE, REPLACE, DELETE)]
    return ", ".join([*parts, f"{counts.get(UNCHANGED, 0)} unchanged"])


def preview_report(stack: str, exists: bool, entries: list[dict[str, Any]]) -> dict[str, Any]:
    counts = _counts(entries)
    inside = [n for e in entries for n in nested_entries(e)]
    nested_counts = _counts(inside)
    said = summary(counts)
    if inside:
        said += f"; inside nested stacks: {summary(nested_counts)}"
    return {
        "stack": stack,
        "exists": exists,
        "resources": entries,
        "counts": counts,
        "nested_counts": nested_counts,
        "summary": said,
    }


def nested_entries(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The entries inside an entry's nested stack, at any depth, parents first."""
    found: list[dict[str, Any]] = []
    for inner in entry.get("nested") or ():
        found.append(inner)
        found.extend(nested_entries(inner))
    return found


def _counts(entries: list[dict[str, Any]]) -> dict[str, int]:
    return {action: sum(1 for e in entries if e["action"] == action) for action in ACTIONS}
