"""The stand-in database's schema: the tables of conv_tasks.db.models, their columns'
defaults, keys, unique indexes (partial ones with their WHERE) and foreign keys with what
each does ON DELETE. Declarations only: tables.py keeps them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Row = dict[str, Any]


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NOW = _Sentinel("now()")  # a column default: the statement's now()
REQUIRED = _Sentinel("NOT NULL without a default")


@dataclass(frozen=True)
class Unique:
    columns: tuple[str, ...]
    # A partial index's WHERE: the rows the index holds.
    holds: Callable[[Row], bool] = lambda row: True


@dataclass(frozen=True)
class Reference:
    table: str
    on_delete: str = "restrict"  # "restrict", "cascade" or "set null"


@dataclass(frozen=True)
class TableSpec:
    columns: Mapping[str, Any]  # name -> default: a value, NOW or REQUIRED
    key: tuple[str, ...] = ("id",)
    serial: bool = False  # the key is an id the table's sequence gives
    json: frozenset[str] = frozenset()
    uniques: tuple[Unique, ...] = ()
    references: Mapping[str, Reference] = field(default_factory=dict)


_STACK_REF = {"stack_id": Reference("stack", "cascade")}

SCHEMA: dict[str, TableSpec] = {
    "raw_template": TableSpec(
        {
            "id": REQUIRED,
            "template": REQUIRED,
            "parameters": {},
            "files": {},
            "environment": {},
            "facade": None,
            "created_at": NOW,
        },
        serial=True,
        json=frozenset({"template", "parameters", "files", "environment", "facade"}),
    ),
    "stack": TableSpec(
        {
            "id": REQUIRED,
            "name": REQUIRED,
            "tenant": REQUIRED,
            "action": REQUIRED,
            "status": REQUIRED,
            "status_reason": "",
            "raw_template_id": None,
            "prev_raw_template_id": None,
            "current_traversal": None,
            "current_graph": None,
            "disable_rollback": True,
            "timeout_mins": None,
            "operation_started_at": None,
            "created_at": NOW,
            "updated_at": NOW,
            "deleted_at": None,
            "idempotency_key": None,
            "tags": [],
            "parent_stack_id": None,
            "parent_resource": None,
            "nested_depth": 0,
        },
        json=frozenset({"current_graph"}),
        uniques=(
            Unique(("tenant", "name"), lambda row: row["deleted_at"] is None),
            Unique(("tenant", "idempotency_key")),
        ),
        references={
            "raw_template_id": Reference("raw_template"),
            "prev_raw_template_id": Reference("raw_template"),
            "parent_stack_id": Reference("stack", "set null"),
        },
    ),
    "resource": TableSpec(
        {
            "id": REQUIRED,
            "stack_id": REQUIRED,
            "name": REQUIRED,
            "version": 0,
            "type": REQUIRED,
            "physical_id": None,
            "action": "INIT",
            "status": "COMPLETE",
            "status_reason": "",
            "template_id": None,
            "properties_data": {},
            "attr_data": {},
            "plugin_data": {},
            "definition_hash": None,
            "requires": [],
            "deletion_policy": "Delete",
            "replaces": None,
            "replaced_by": None,
            "lock_holder": None,
            "lock_nonce": None,
            "lock_expires_at": None,
            "waiter": None,
            "action_started_at": None,
            "action_deadline": None,
            "interrupt_reason": None,
            "atomic_key": 0,
            "created_at": NOW,
            "updated_at": NOW,
        },
        serial=True,
        json=frozenset({"properties_data", "attr_data", "plugin_data", "requires"}),
        uniques=(Unique(("stack_id", "name", "version")),),
        references=_STACK_REF,
    ),
    "event": TableSpec(
        {
            "id": REQUIRED,
            "stack_id": REQUIRED,
            "resource_name": None,
            "physical_id": None,
            "action": REQUIRED,
            "status": REQUIRED,
            "reason": "",
            "traversal": None,
            "created_at": NOW,
        },
        serial=True,
        references=_STACK_REF,
    ),
    "stack_operation": TableSpec(
        {
            "id": REQUIRED,
            "stack_id": REQUIRED,
            "tenant": REQUIRED,
            "traversal": REQUIRED,
            "restarted_from": [],
            "action": REQUIRED,
            "result": REQUIRED,
            "reason": "",
            "first_event_id": None,
            "started_at": NOW,
            "ended_at": None,
            "resources_created": 0,
            "resources_updated": 0,
            "resources_replaced": 0,
            "resources_deleted": 0,
            "resources_failed": 0,
            "failures": [],
            "watchdog_restarts": 0,
        },
        serial=True,
        json=frozenset({"failures"}),
        references=_STACK_REF,
    ),
    "sandbox_object": TableSpec(
        {
            "id": REQUIRED,
            "token": REQUIRED,
            "kind": REQUIRED,
            "properties": {},
            "create_calls": 1,
            "deleted": False,
            "created_at": NOW,
        },
        json=frozenset({"properties"}),
        uniques=(Unique(("token",)),),
    ),
    "software_config": TableSpec(
        {
            "id": REQUIRED,
            "tenant": REQUIRED,
            "stack_id": REQUIRED,
            "name": "",
            "group": REQUIRED,
            "config": "",
            "inputs": [],
            "outputs": [],
            "options": {},
            "created_at": NOW,
        },
        json=frozenset({"inputs", "outputs", "options"}),
        references=_STACK_REF,
    ),
    "software_deployment": TableSpec(
        {
            "id": REQUIRED,
            "tenant": REQUIRED,
            "stack_id": REQUIRED,
            "resource_name": REQUIRED,
            "server": REQUIRED,
            "name": REQUIRED,
            "config_id": None,
            "config_name": "",
            "config_group": REQUIRED,
            "config": "",
            "config_inputs": [],
            "config_outputs": [],
            "config_options": {},
            "input_values": {},
            "signal_transport": REQUIRED,
            "action": REQUIRED,
            "action_token": REQUIRED,
            "status": REQUIRED,
            "status_reason": "",
            "outputs": {},
            "signal_hash": None,
            "previous_signal_hash": None,
            "previous_status": None,
            "started_at": None,
            "signalled_at": None,
            "action_published_at": NOW,
            "created_at": NOW,
            "updated_at": NOW,
        },
        json=frozenset(
            {
                "config_inputs",
                "config_outputs",
                "config_options",
                "input_values",
                "outputs",
            }
        ),
        references=_STACK_REF,
    ),
    "server_credential": TableSpec(
        {
            "stack_id": REQUIRED,
            "server": REQUIRED,
            "tenant": REQUIRED,
            "credential_hash": REQUIRED,
            "created_at": NOW,
        },
        key=("stack_id", "server"),
        references=_STACK_REF,
    ),
    "wait_condition_handle": TableSpec(
        {
            "id": REQUIRED,
            "stack_id": REQUIRED,
            "resource_name": REQUIRED,
            "credential_hash": None,
            "signals": [],
            "deleted_at": None,
            "created_at": NOW,
            "updated_at": NOW,
        },
        json=frozenset({"signals"}),
        references=_STACK_REF,
    ),
}


def key_of(table: str, row: Mapping[str, Any]) -> Any:
    columns = SCHEMA[table].key
    return row[columns[0]] if len(columns) == 1 else tuple(row[c] for c in columns)
