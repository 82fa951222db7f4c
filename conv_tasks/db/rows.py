"""The frozen values the repositories hand out: one per table the engine reads.

A repository reads ORM rows inside its transaction and returns these, so nothing outside
conv_tasks.db holds a live ORM object, and nothing can change a row by setting an
attribute: every change is a named repository operation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, TypeVar

from conv_tasks.db.sealed_columns import open_fields
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer
from conv_tasks.statuses import Status, state_name

T = TypeVar("T")


def freeze(cls: type[T], row: object) -> T:
    """The value of type `cls` (a frozen dataclass) holding `row`'s attributes of the same
    names."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    return cls(**{name: getattr(row, name) for name in names})


@dataclass(frozen=True)
class StackRow:
    """A stack, as it was when read."""

    id: str
    name: str
    tenant: str
    action: str
    status: str
    status_reason: str
    raw_template_id: int | None
    prev_raw_template_id: int | None
    current_traversal: str | None
    current_graph: Mapping[str, Any] | None
    disable_rollback: bool
    timeout_mins: int | None
    operation_started_at: datetime | None
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None
    idempotency_key: str | None
    tags: tuple[str, ...]
    parent_stack_id: str | None
    parent_resource: str | None
    nested_depth: int

    @property
    def state(self) -> str:
        """`CREATE_IN_PROGRESS`, `UPDATE_COMPLETE`, …"""
        return state_name(self.action, self.status)

    @property
    def in_progress(self) -> bool:
        return self.status == Status.IN_PROGRESS

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass(frozen=True)
class NewStack:
    """What a create writes on a new stack row."""

    id: str
    name: str
    tenant: str
    action: str
    status: str
    disable_rollback: bool
    timeout_mins: int | None
    idempotency_key: str | None
    tags: tuple[str, ...]
    parent_stack_id: str | None = None
    parent_resource: str | None = None
    nested_depth: int = 0


@dataclass(frozen=True)
class TemplateRow:
    """A stored template with its parameters, merged environment, files and facade."""

    id: int
    template: dict[str, Any]
    parameters: dict[str, Any]
    environment: dict[str, Any]
    files: dict[str, Any]
    # The parent resource's definition, for a nested stack's template (resource_facade).
    facade: dict[str, Any] | None


@dataclass(frozen=True)
class ResourceRow:
    """One version of one resource, as stack operations and reads see it."""

    id: int
    stack_id: str
    name: str
    version: int
    type: str
    physical_id: str | None
    action: str
    status: str
    status_reason: str
    template_id: int | None
    properties_data: Mapping[str, Any]
    attr_data: Mapping[str, Any]
    plugin_data: Mapping[str, Any]
    definition_hash: str | None
    requires: tuple[str, ...]
    deletion_policy: str
    replaces: int | None
    replaced_by: int | None
    lock_nonce: str | None
    action_started_at: datetime | None
    action_deadline: datetime | None
    interrupt_reason: str | None
    atomic_key: int
    updated_at: datetime | None

    @property
    def state(self) -> str:
        return state_name(self.action, self.status)

    @property
    def is_head(self) -> bool:
        """Nothing replaced it (the newest such version of its name is the resource's head)."""
        return self.replaced_by is None


def resource_row(row: Any, sealer: Sealer = PLAINTEXT) -> ResourceRow:
    values = {f.name: getattr(row, f.name) for f in fields(ResourceRow)}
    values = open_fields(sealer, "resource", values)
    values["requires"] = tuple(values["requires"] or ())
    for name in ("properties_data", "attr_data", "plugin_data"):
        values[name] = values[name] or {}
    values["status_reason"] = values["status_reason"] or ""
    return ResourceRow(**values)


def stack_row(row: Any) -> StackRow:
    values = {f.name: getattr(row, f.name) for f in fields(StackRow)}
    values["tags"] = tuple(values["tags"] or ())
    values["status_reason"] = values["status_reason"] or ""
    return StackRow(**values)


@dataclass(frozen=True)
class EventRow:
    id: int
    stack_id: str
    resource_name: str | None
    physical_id: str | None
    action: str
    status: str
    reason: str
    traversal: str | None
    created_at: datetime

    @property
    def state(self) -> str:
        return state_name(self.action, self.status)


@dataclass(frozen=True)
class OperationFailure:
    """A resource an operation failed on, and why (as its event said)."""

    resource: str
    reason: str


@dataclass(frozen=True)
class OperationRow:
    """One stack operation, as its history shows it (conv_tasks.db.operations)."""

    id: int
    stack_id: str
    tenant: str
    traversal: str
    action: str
    result: str
    reason: str
    started_at: datetime
    ended_at: datetime | None
    resources_created: int
    resources_updated: int
    resources_replaced: int
    resources_deleted: int
    resources_failed: int
    failures: tuple[OperationFailure, ...]
    watchdog_restarts: int


def operation_row(row: Any) -> OperationRow:
    values = {f.name: getattr(row, f.name) for f in fields(OperationRow)}
    values["failures"] = tuple(
        OperationFailure(str(item.get("resource", "")), str(item.get("reason", "")))
        for item in values["failures"] or ()
        if isinstance(item, Mapping)
    )
    values["reason"] = values["reason"] or ""
    return OperationRow(**values)


@dataclass(frozen=True)
class DeploymentRow:
    """A software deployment: its config snapshot, its current action and how that stands."""

    id: str
    tenant: str
    stack_id: str
    resource_name: str
    server: str
    name: str
    config_id: str | None
    config_name: str
    config_group: str
    config: str
    config_inputs: list[Any]
    config_outputs: list[Any]
    config_options: dict[str, Any]
    input_values: dict[str, Any]
    signal_transport: str
    action: str
    action_token: str
    status: str
    status_reason: str
    outputs: dict[str, Any]
    signal_hash: str | None
    previous_signal_hash: str | None
    previous_status: str | None
    started_at: datetime | None
    signalled_at: datetime | None
    action_published_at: datetime
    created_at: datetime
    updated_at: datetime

    @property
    def state(self) -> str:
        return state_name(self.action, self.status)


@dataclass(frozen=True)
class HandleRow:
    """A wait condition handle: the hash of its token and the signals it holds."""

    id: str
    stack_id: str
    resource_name: str
    credential_hash: str | None
    signals: list[Any]
    deleted_at: datetime | None
