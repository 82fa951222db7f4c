"""Stand-ins for the stores resource types act through: the sandbox cloud, software configs
and deployments, wait condition handles. Each call is one short transaction of the stand-in
database, on the same tables its transactions' repositories read (a server's signal
recorded through `tx.deployments` is what the deployment's resource reads back), with the
rules of conv_tasks.db's PostgresSandbox, PostgresDeployments and PostgresWaitHandles.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from conv_tasks.db import DeploymentRow, HandleRow
from conv_tasks.db.deployments import state_of
from conv_tasks.db.rows import freeze
from conv_tasks.db.wait_handles import signals_of
from conv_tasks.deployments.records import (
    ConfigInput,
    ConfigOutput,
    DeployAction,
    DeploymentAction,
    DeploymentState,
    DeployStatus,
    SoftwareConfig,
)
from conv_tasks.waitconditions.signals import WaitSignal

from .schema import Row
from .tables import Work, columns_of

Begin = Callable[[], AbstractContextManager[Work]]
_PENDING = DeployStatus.IN_PROGRESS.value


class StandinSandbox:
    """The sandbox cloud: the same token always gives the same object, created once."""

    def __init__(self, begin: Begin) -> None:
        self._begin = begin

    def create(self, token: str, kind: str, properties: Mapping[str, Any]) -> str:
        with self._begin() as work:
            made = [row for row in work.rows("sandbox_object") if row["token"] == token]
            if made:
                work.update(
                    "sandbox_object", made[0]["id"], create_calls=made[0]["create_calls"] + 1
                )
                return str(made[0]["id"])
            values = {"id": str(uuid.uuid4()), "token": token, "kind": kind}
            return str(
                work.insert("sandbox_object", {**values, "properties": dict(properties)})["id"]
            )

    def update(self, object_id: str, properties: Mapping[str, Any]) -> None:
        with self._begin() as work:
            if work.get("sandbox_object", object_id) is not None:
                work.update("sandbox_object", object_id, properties=dict(properties))

    def delete(self, object_id: str) -> bool:
        with self._begin() as work:
            found = work.get("sandbox_object", object_id)
            if found is None or found["deleted"]:
                return False
            work.update("sandbox_object", object_id, deleted=True)
            return True

    def get(self, object_id: str) -> Mapping[str, Any] | None:
        with self._begin() as work:
            found = work.get("sandbox_object", object_id)
        if found is None or found["deleted"]:
            return None
        return {"id": found["id"], "kind": found["kind"], "properties": dict(found["properties"])}

    def find(self, token: str) -> str | None:
        with self._begin() as work:
            made = [
                row
                for row in work.rows("sandbox_object")
                if row["token"] == token and not row["deleted"]
            ]
        return str(made[0]["id"]) if made else None


def _tenant(work: Work, stack_id: str) -> str | None:
    stack = work.get("stack", stack_id)
    return None if stack is None else stack["tenant"]


def _new_run(row: Row, now: Any) -> dict[str, Any]:
    """What publishing a new run of an action writes besides the action (the real store's
    `_new_run`)."""
    return {
        "previous_signal_hash": row["signal_hash"],
        "previous_status": DeployStatus.FAILED.value
        if row["status"] == _PENDING
        else row["status"],
        "signal_hash": None,
        "started_at": None,
        "action_published_at": now,
        "updated_at": now,
    }


def _state(row: Row) -> DeploymentState:
    return state_of(freeze(DeploymentRow, columns_of(row)))


class StandinDeployments:
    def __init__(self, begin: Begin) -> None:
        self._begin = begin

    def save_config(self, stack_id: str, config: SoftwareConfig) -> None:
        with self._begin() as work:
            if work.get("software_config", config.id) is not None:
                return
            work.insert(
                "software_config",
                {
                    "id": config.id,
                    "tenant": _tenant(work, stack_id),
                    "stack_id": stack_id,
                    "name": config.name,
                    "group": config.group,
                    "config": config.config,
                    "inputs": [i.to_json() for i in config.inputs],
                    "outputs": [o.to_json() for o in config.outputs],
                    "options": dict(config.options),
                },
            )

    def config(self, stack_id: str, config_id: str) -> SoftwareConfig | None:
        with self._begin() as work:
            row = work.get("software_config", config_id)
            if row is None or row["tenant"] != _tenant(work, stack_id):
                return None
        return SoftwareConfig(
            id=row["id"],
            name=row["name"],
            group=row["group"],
            config=row["config"],
            options=dict(row["options"] or {}),
            inputs=tuple(ConfigInput.from_json(i) for i in row["inputs"] or ()),
            outputs=tuple(ConfigOutput.from_json(o) for o in row["outputs"] or ()),
        )

    def delete_config(self, config_id: str) -> None:
        with self._begin() as work:
            if work.get("software_config", config_id) is not None:
                work.delete("software_config", config_id)

    def publish(self, action: DeploymentAction) -> DeploymentState:
        config = action.config
        values: dict[str, Any] = {
            "server": action.server,
            "name": action.name,
            "config_id": config.id or None,
            "config_name": config.name,
            "config_group": config.group,
            "config": config.config,
            "config_inputs": [i.to_json() for i in config.inputs],
            "config_outputs": [o.to_json() for o in config.outputs],
            "config_options": dict(config.options),
            "input_values": dict(action.input_values),
            "signal_transport": action.signal_transport,
            "action": action.action.value,
            "action_token": action.token,
            "status": _PENDING if action.awaited else DeployStatus.COMPLETE.value,
            "status_reason": "" if action.awaited else f"{action.action} is not in actions",
        }
        with self._begin() as work:
            found = work.get("software_deployment", action.id)
            if found is None:
                new = {"id": action.id, "stack_id": action.stack_id, "outputs": {}}
                tenant = _tenant(work, action.stack_id)
                new.update(tenant=tenant, resource_name=action.resource_name, **values)
                return _state(work.insert("software_deployment", new))
            if found["action_token"] == action.token:
                # The same step run again must not publish its action a second time.
                return _state(found)
            changes = {**_new_run(found, work.now), **values}
            return _state(work.update("software_deployment", action.id, **changes))

    def publish_delete(self, deployment_id: str, token: str) -> DeploymentState | None:
        with self._begin() as work:
            found = work.get("software_deployment", deployment_id)
            if found is None:
                return None
            failed_delete = found["action"] == DeployAction.DELETE and found["status"] == "FAILED"
            if found["action_token"] != token or failed_delete:
                found = work.update(
                    "software_deployment",
                    deployment_id,
                    **_new_run(found, work.now),
                    action=DeployAction.DELETE.value,
                    action_token=token,
                    status=_PENDING,
                    status_reason="",
                )
            return _state(found)

    def state(self, deployment_id: str) -> DeploymentState | None:
        with self._begin() as work:
            found = work.get("software_deployment", deployment_id)
        return None if found is None else _state(found)

    def stop(self, deployment_id: str, token: str, reason: str) -> None:
        with self._begin() as work:
            found = work.get("software_deployment", deployment_id)
            if found is not None and (found["action_token"], found["status"]) == (token, _PENDING):
                work.update(
                    "software_deployment",
                    deployment_id,
                    status=DeployStatus.FAILED.value,
                    status_reason=reason,
                    updated_at=work.now,
                )

    def remove(self, deployment_id: str) -> None:
        with self._begin() as work:
            if work.get("software_deployment", deployment_id) is not None:
                work.delete("software_deployment", deployment_id)


class StandinWaitHandles:
    def __init__(self, begin: Begin) -> None:
        self._begin = begin

    def create_handle(
        self, handle_id: str, stack_id: str, resource_name: str, credential_hash: str | None
    ) -> None:
        with self._begin() as work:
            if work.get("wait_condition_handle", handle_id) is None:
                work.insert(
                    "wait_condition_handle",
                    {
                        "id": handle_id,
                        "stack_id": stack_id,
                        "resource_name": resource_name,
                        "credential_hash": credential_hash,
                    },
                )
            else:
                work.update(
                    "wait_condition_handle",
                    handle_id,
                    credential_hash=credential_hash,
                    deleted_at=None,
                    updated_at=work.now,
                )

    def signals(self, handle_id: str, stack_id: str) -> tuple[WaitSignal, ...] | None:
        with self._begin() as work:
            found = work.get("wait_condition_handle", handle_id)
        if found is None or found["stack_id"] != stack_id or found["deleted_at"] is not None:
            return None
        return signals_of(freeze(HandleRow, columns_of(found)))

    def clear(self, handle_id: str) -> None:
        with self._begin() as work:
            _touch(work, handle_id, signals=[])

    def remove(self, handle_id: str) -> None:
        with self._begin() as work:
            _touch(work, handle_id, deleted_at=work.now)


def _touch(work: Work, handle_id: str, **values: Any) -> None:
    if work.get("wait_condition_handle", handle_id) is not None:
        work.update("wait_condition_handle", handle_id, **values, updated_at=work.now)
