"""Stand-ins for conv_tasks.db's DeploymentRecords and HandleRecords: deployments, server
credentials and wait condition handles, in the caller's transaction (the signal paths)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from conv_tasks.db import DeploymentRow, HandleRow
from conv_tasks.db.rows import freeze
from conv_tasks.waitconditions.signals import WaitSignal

from .schema import Row, key_of
from .tables import Work, columns_of

PENDING = "IN_PROGRESS"


class DeploymentRecords:
    def __init__(self, work: Work) -> None:
        self._work = work

    def _rows(self, statement: str, keep: Callable[[Row], bool]) -> list[DeploymentRow]:
        self._work.statement(f"deployments.{statement}")
        found = [row for row in self._work.rows("software_deployment") if keep(row)]
        return [freeze(DeploymentRow, columns_of(row)) for row in found]

    def credential_hashes(self, server: str) -> list[tuple[str, str]]:
        self._work.statement("deployments.credential_hashes")
        live = {r["id"] for r in self._work.rows("stack") if r["deleted_at"] is None}
        return [
            (row["stack_id"], row["credential_hash"])
            for row in self._work.rows("server_credential")
            if row["server"] == server and row["stack_id"] in live
        ]

    def pending_for_server(self, server: str, stack_ids: Iterable[str]) -> list[DeploymentRow]:
        wanted = set(stack_ids)
        found = self._rows(
            "pending_for_server",
            lambda r: r["server"] == server and r["status"] == PENDING and r["stack_id"] in wanted,
        )
        return sorted(found, key=lambda d: (d.created_at, d.id))

    def set_signal_hashes(self, hashes: Mapping[str, str]) -> None:
        self._work.statement("deployments.set_signal_hashes")
        for deployment_id, signal_hash in hashes.items():
            row = self._work.get("software_deployment", deployment_id)
            if row is not None and row["signal_hash"] != signal_hash:
                self._work.update("software_deployment", deployment_id, signal_hash=signal_hash)

    def lock(self, deployment_id: str) -> DeploymentRow | None:
        found = self._rows("lock", lambda r: r["id"] == deployment_id)
        return found[0] if found else None

    def lock_of_resource(
        self, stack_id: str, resource_name: str, physical_id: str | None
    ) -> DeploymentRow | None:
        if physical_id is None:
            return None
        found = self._rows(
            "lock_of_resource",
            lambda r: (
                (r["id"], r["stack_id"], r["resource_name"])
                == (physical_id, stack_id, resource_name)
            ),
        )
        return found[0] if found else None

    def of_stack(self, stack_id: str) -> list[DeploymentRow]:
        found = self._rows("of_stack", lambda r: r["stack_id"] == stack_id)
        return sorted(found, key=lambda d: (d.resource_name, d.created_at))

    def record_signal(
        self,
        deployment_id: str,
        *,
        now: datetime,
        started: bool,
        ended: tuple[str, str, Mapping[str, Any]] | None,
    ) -> None:
        self._work.statement("deployments.record_signal")
        values: dict[str, Any] = {"signalled_at": now, "updated_at": now}
        if started:
            values["started_at"] = now
        if ended is not None:
            status, reason, outputs = ended
            values.update(status=status, status_reason=reason, outputs=dict(outputs))
        if self._work.get("software_deployment", deployment_id) is not None:
            self._work.update("software_deployment", deployment_id, **values)

    def issue_credential(
        self, tenant: str, stack_id: str, server: str, credential_hash: str, *, rotate: bool
    ) -> bool:
        self._work.statement("deployments.issue_credential")
        key = (stack_id, server)
        if self._work.get("server_credential", key) is not None:
            if not rotate:
                return False
            self._work.update(
                "server_credential", key, credential_hash=credential_hash, created_at=self._work.now
            )
            return True
        self._work.insert(
            "server_credential",
            {
                "stack_id": stack_id,
                "server": server,
                "tenant": tenant,
                "credential_hash": credential_hash,
            },
        )
        return True

    def forget_stack(self, stack_id: str) -> None:
        self._work.statement("deployments.forget_stack")
        for table in ("server_credential", "software_deployment", "software_config"):
            for row in self._work.rows(table):
                if row["stack_id"] == stack_id:
                    self._work.delete(table, key_of(table, row))


class HandleRecords:
    def __init__(self, work: Work) -> None:
        self._work = work

    def _locked(self, statement: str, keep: Callable[[Row], bool]) -> HandleRow | None:
        self._work.statement(f"handles.{statement}")
        found = [row for row in self._work.rows("wait_condition_handle") if keep(row)]
        return freeze(HandleRow, columns_of(found[0])) if found else None

    def lock(self, handle_id: str) -> HandleRow | None:
        return self._locked("lock", lambda r: r["id"] == handle_id)

    def lock_of_resource(self, stack_id: str, physical_id: str | None) -> HandleRow | None:
        if physical_id is None:
            return None
        return self._locked(
            "lock_of_resource",
            lambda r: (
                (r["id"], r["stack_id"]) == (physical_id, stack_id) and r["deleted_at"] is None
            ),
        )

    def save_signals(self, handle_id: str, signals: Sequence[WaitSignal]) -> None:
        self._work.statement("handles.save_signals")
        if self._work.get("wait_condition_handle", handle_id) is not None:
            self._work.update(
                "wait_condition_handle",
                handle_id,
                signals=[s.to_json() for s in signals],
                updated_at=self._work.now,
            )
