"""What a stack operation answers: frozen values with the JSON the public tasks return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OperationResult:
    """A stack operation started (or, for a cancel without rollback, ended): which stack,
    which action, the state the stack is in, and the event to follow its progress from."""

    stack_id: str
    name: str
    action: str
    state: str
    event_id: int | None
    traversal: str | None = None
    warnings: tuple[str, ...] | None = None  # a definition was built: what it warned of
    replayed: bool = False  # an idempotent create answered with the stack made before

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "stack_id": self.stack_id,
            "name": self.name,
            "action": str(self.action),
            "status": self.state,
        }
        if self.traversal is not None:
            data["traversal"] = self.traversal
        data["event_id"] = self.event_id
        if self.warnings is not None:
            data["warnings"] = list(self.warnings)
        if self.replayed:
            data["replayed"] = True
        return data


@dataclass(frozen=True)
class Marked:
    """A resource marked unhealthy (or healthy again), or left as it was (`changed` False)."""

    stack_id: str
    resource: str
    state: str
    changed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "stack_id": self.stack_id,
            "resource": self.resource,
            "status": self.state,
            "changed": self.changed,
        }
