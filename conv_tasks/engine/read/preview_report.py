"""How a preview answers: one entry per resource (its action, reason, changed properties, what
is not known yet, its nested stack's entries), and the report around them (counts, those
inside nested stacks, one summary line). A change derived from a hidden value says that it
changed, never what from or to. Pure: values in, JSON-able values out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.engine.definition import StackDefinition

CREATE, UPDATE, REPLACE, DELETE, UNCHANGED = "create", "update", "replace", "delete", "unchanged"
ACTIONS = (CREATE, UPDATE, REPLACE, DELETE, UNCHANGED)
# A change's marker in place of its old and new values, which derive from a hidden value.
HIDDEN_CHANGE = "hidden"


def change_entry(
    before: Any, after: Any, hidden: bool, new: StackDefinition, old: StackDefinition | None
) -> dict[str, Any]:
    """{"old", "new"} of a property that differs; {"hidden": True} and neither value when
    they derive from a hidden value (or differ only where one is masked): two masks would
    say nothing, and the values must not be shown."""
    if not hidden:
        shown = _redacted(before, new, old), _redacted(after, new, old)
        if shown[0] != shown[1]:
            return {"old": shown[0], "new": shown[1]}
    return {HIDDEN_CHANGE: True}


def _redacted(value: Any, new: StackDefinition, old: StackDefinition | None) -> Any:
    value = new.redact.value(value)
    return old.redact.value(value) if old is not None else value


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


def report(stack: str, exists: bool, entries: list[dict[str, Any]]) -> dict[str, Any]:
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
