"""An in-memory Sandbox and an ActionContext builder for the resource-type unit tests."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.resources import ActionContext, ResourceType, prepare_properties


@dataclass
class SandboxObject:
    id: str
    kind: str
    properties: dict[str, Any]
    create_calls: int = 1
    deleted: bool = False


@dataclass
class MemorySandbox:
    """Keeps objects in a dict; the same token returns the same object, as the real one does."""

    objects: dict[str, SandboxObject] = field(default_factory=dict)
    by_token: dict[str, str] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def create(self, token: str, kind: str, properties: Mapping[str, Any]) -> str:
        self.calls.append(("create", token))
        if token in self.by_token:
            found = self.objects[self.by_token[token]]
            found.create_calls += 1
            return found.id
        obj = SandboxObject(str(uuid.uuid4()), kind, dict(properties))
        self.objects[obj.id] = obj
        self.by_token[token] = obj.id
        return obj.id

    def update(self, object_id: str, properties: Mapping[str, Any]) -> None:
        self.calls.append(("update", object_id))
        obj = self.objects.get(object_id)
        if obj is not None and not obj.deleted:
            obj.properties = dict(properties)

    def delete(self, object_id: str) -> bool:
        self.calls.append(("delete", object_id))
        obj = self.objects.get(object_id)
        if obj is None or obj.deleted:
            return False
        obj.deleted = True
        return True

    def get(self, object_id: str) -> Mapping[str, Any] | None:
        obj = self.objects.get(object_id)
        if obj is None or obj.deleted:
            return None
        return {"id": obj.id, "kind": obj.kind, "properties": dict(obj.properties)}

    def find(self, token: str) -> str | None:
        found = self.by_token.get(token)
        return found if found is not None and not self.objects[found].deleted else None

    def live(self) -> list[SandboxObject]:
        return [o for o in self.objects.values() if not o.deleted]


def make_ctx(
    resource_type: type[ResourceType],
    sandbox: MemorySandbox,
    *,
    action: str = "CREATE",
    properties: Mapping[str, Any] | None = None,
    old_properties: Mapping[str, Any] | None = None,
    physical_id: str | None = None,
    data: Mapping[str, Any] | None = None,
    started_at: float = 1000.0,
    now: float = 1000.0,
    token: str | None = None,
    name: str = "res",
) -> ActionContext:
    """A context with properties prepared the way the engine prepares them."""
    prepared = prepare_properties(
        resource_type, properties or {}, path=f"resources.{name}.properties"
    )
    return ActionContext(
        stack_id="stack-1",
        resource_name=name,
        action=action,
        idempotency_token=token or f"stack-1:1:{action}",
        properties=prepared,
        old_properties=old_properties,
        physical_id=physical_id,
        data=dict(data or {}),
        started_at=started_at,
        now=now,
        sandbox=sandbox,
    )
