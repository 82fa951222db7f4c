"""What a step answers: Progress (where the action stands), and Observed (the real object as
`observe` found it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Observed:
    """The real object as a type's `observe` found it: whether it exists, and the properties
    it can read back (those it cannot, a password say, are left out)."""

    exists: bool
    """False only when the service said the object is not there: a stack check then fails
    the resource, and an adoption fails. A service that did not answer is not an answer:
    raise `Throttled` or `Transient` instead."""
    properties: Mapping[str, Any] = field(default_factory=dict)
    """The properties read back, by name: each is compared with the stored value of the same
    name; a property left out is not compared."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """What the type keeps of the object as its create would have (`Progress.data`), for a
    resource that adopts it (external_id): its attributes are read from it. SDK 1.1."""

    def differences(self, wanted: Mapping[str, Any]) -> list[str]:
        """The properties read back whose real value is not the wanted one, by name."""
        return sorted(k for k, v in self.properties.items() if k in wanted and wanted[k] != v)


@dataclass(frozen=True)
class Progress:
    """Where an action stands after one step. The engine records it with the resource before
    it does anything else: a step that is not done is polled after `poll_after` seconds, by
    whichever worker takes the node then."""

    done: bool
    """True when the action is finished; False to be polled (`check_create` and its kin)."""
    physical_id: str | None = None
    """The id of the real object, recorded with the step whether it is done or not: return it
    as soon as the service gives it, so that a failure or an interruption after that leaves
    it known (a later delete gets it). None keeps the id recorded before: a step cannot
    clear it."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """What to keep with the resource (JSON values), merged over what earlier steps kept, key
    by key: a key is never removed, only given a new value (None, say). It comes back as
    `ActionContext.data`, and `attributes()` reads it by default."""
    poll_after: float = 1.0
    """Seconds until the next poll, when not done (at least 0.05)."""
