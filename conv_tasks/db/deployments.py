"""Software configs, deployments and server credentials in PostgreSQL.

PostgresDeployments is the DeploymentStore the resource types write through,
each call one short transaction of its own. DeploymentRecords serves the
public deployment tasks inside the caller's transaction, and hands out
frozen DeploymentRows. No credential is ever written here: only hashes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from conv_tasks.db.models import ServerCredential, SoftwareConfigRow, SoftwareDeploymentRow, Stack
from conv_tasks.db.rows import DeploymentRow
from conv_tasks.db.sealed_columns import open_fields, seal_fields
from conv_tasks.db.session import session_scope
from conv_tasks.deployments import (
    ConfigInput,
    ConfigOutput,
    DeployAction,
    DeploymentAction,
    DeploymentState,
    DeployStatus,
    PublishedAction,
    SoftwareConfig,
)
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer

_PENDING = DeployStatus.IN_PROGRESS.value


def _tenant_of(stack_id: str) -> Any:
    return select(Stack.tenant).where(Stack.id == stack_id).scalar_subquery()


Deployment = SoftwareDeploymentRow | DeploymentRow


def opened_row(sealer: Sealer, row: SoftwareDeploymentRow) -> DeploymentRow:
    """A deployment row as a frozen value, its sealed columns opened."""
    values = {field.name: getattr(row, field.name) for field in fields(DeploymentRow)}
    return DeploymentRow(**open_fields(sealer, "software_deployment", values))


def state_of(row: Deployment) -> DeploymentState:
    return DeploymentState(
        id=row.id,
        action=row.action,
        token=row.action_token,
        status=row.status,
        status_reason=row.status_reason,
        outputs=dict(row.outputs or {}),
        server_ran=row.signalled_at is not None or row.started_at is not None,
        output_names=tuple(str(o.get("name")) for o in row.config_outputs or ()),
    )


def config_of(row: Deployment) -> SoftwareConfig:
    """The config snapshot a deployment row holds."""
    return SoftwareConfig(
        id=row.config_id or "",
        name=row.config_name,
        group=row.config_group,
        config=row.config,
        options=dict(row.config_options or {}),
        inputs=tuple(ConfigInput.from_json(i) for i in row.config_inputs or ()),
        outputs=tuple(ConfigOutput.from_json(o) for o in row.config_outputs or ()),
    )


def published_action(row: Deployment) -> PublishedAction:
    return PublishedAction(
        id=row.id,
        stack_id=row.stack_id,
        resource_name=row.resource_name,
        server=row.server,
        name=row.name,
        config=config_of(row),
        input_values=dict(row.input_values or {}),
        action=row.action,
        updated_time=row.action_published_at,
        run=row.action_token,
    )


def _new_run(table: Any) -> dict[str, Any]:
    """What publishing a new run of an action writes besides the action: the current run's
    signal credential becomes the previous run's, with how that run ended."""
    return {
        "previous_signal_hash": table.signal_hash,
        "previous_status": case(
            (table.status == _PENDING, DeployStatus.FAILED.value), else_=table.status
        ),
        "signal_hash": None,
        "started_at": None,
        "action_published_at": func.now(),
        "updated_at": func.now(),
    }


class PostgresDeployments:
    """Implements conv_tasks.deployments.store.DeploymentStore on the deployment tables;
    configs, inputs and outputs sealed with `sealer` (conv_tasks.db.sealed_columns)."""

    def __init__(self, database_url: str | None = None, *, sealer: Sealer) -> None:
        self._url = database_url
        self._sealer = sealer

    def save_config(self, stack_id: str, config: SoftwareConfig) -> None:
        with session_scope(self._url) as session:
            session.execute(
                insert(SoftwareConfigRow)
                .values(
                    id=config.id,
                    tenant=_tenant_of(stack_id),
                    stack_id=stack_id,
                    name=config.name,
                    group=config.group,
                    outputs=[o.to_json() for o in config.outputs],
                    **seal_fields(
                        self._sealer,
                        "software_config",
                        {
                            "config": config.config,
                            "inputs": [i.to_json() for i in config.inputs],
                            "options": dict(config.options),
                        },
                    ),
                )
                .on_conflict_do_nothing(index_elements=[SoftwareConfigRow.id])
            )

    def config(self, stack_id: str, config_id: str) -> SoftwareConfig | None:
        with session_scope(self._url) as session:
            row = session.scalars(
                select(SoftwareConfigRow).where(
                    SoftwareConfigRow.id == config_id,
                    SoftwareConfigRow.tenant == _tenant_of(stack_id),
                )
            ).one_or_none()
            if row is None:
                return None
            stored = {"config": row.config, "inputs": row.inputs, "options": row.options}
            opened = open_fields(self._sealer, "software_config", stored)
            return SoftwareConfig(
                id=row.id,
                name=row.name,
                group=row.group,
                config=opened["config"],
                options=dict(opened["options"] or {}),
                inputs=tuple(ConfigInput.from_json(i) for i in opened["inputs"] or ()),
                outputs=tuple(ConfigOutput.from_json(o) for o in row.outputs or ()),
            )

    def delete_config(self, config_id: str) -> None:
        with session_scope(self._url) as session:
            session.execute(delete(SoftwareConfigRow).where(SoftwareConfigRow.id == config_id))

    def publish(self, action: DeploymentAction) -> DeploymentState:
        config = action.config
        status = _PENDING if action.awaited else DeployStatus.COMPLETE.value
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
            "status": status,
            "status_reason": "" if action.awaited else f"{action.action} is not in actions",
        }
        values = seal_fields(self._sealer, "software_deployment", values)
        table = SoftwareDeploymentRow.__table__
        stmt = insert(SoftwareDeploymentRow).values(
            id=action.id,
            tenant=_tenant_of(action.stack_id),
            stack_id=action.stack_id,
            resource_name=action.resource_name,
            outputs=self._sealer.seal_json({}),
            **values,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[SoftwareDeploymentRow.id],
            set_={
                **_new_run(table.c),
                **{name: stmt.excluded[name] for name in values},
            },
            # The same resource step run again (after a crash) must not publish its action a
            # second time: the server may have run it already.
            where=table.c.action_token != stmt.excluded.action_token,
        )
        with session_scope(self._url) as session:
            session.execute(stmt)
            row = session.get(SoftwareDeploymentRow, action.id)
            assert row is not None  # just written, in this transaction
            return state_of(opened_row(self._sealer, row))

    def publish_delete(self, deployment_id: str, token: str) -> DeploymentState | None:
        table = SoftwareDeploymentRow
        with session_scope(self._url) as session:
            session.execute(
                update(table)
                .where(
                    table.id == deployment_id,
                    or_(
                        table.action_token != token,
                        and_(table.action == DeployAction.DELETE, table.status == "FAILED"),
                    ),
                )
                .values(
                    **_new_run(table),
                    action=DeployAction.DELETE.value,
                    action_token=token,
                    status=_PENDING,
                    status_reason="",
                )
            )
            row = session.get(table, deployment_id)
            return None if row is None else state_of(opened_row(self._sealer, row))

    def state(self, deployment_id: str) -> DeploymentState | None:
        with session_scope(self._url) as session:
            row = session.get(SoftwareDeploymentRow, deployment_id)
            return None if row is None else state_of(opened_row(self._sealer, row))

    def stop(self, deployment_id: str, token: str, reason: str) -> None:
        table = SoftwareDeploymentRow
        with session_scope(self._url) as session:
            session.execute(
                update(table)
                .where(
                    table.id == deployment_id,
                    table.action_token == token,
                    table.status == _PENDING,
                )
                .values(
                    status=DeployStatus.FAILED.value, status_reason=reason, updated_at=func.now()
                )
            )

    def remove(self, deployment_id: str) -> None:
        with session_scope(self._url) as session:
            session.execute(
                delete(SoftwareDeploymentRow).where(SoftwareDeploymentRow.id == deployment_id)
            )


# ------------------------------------------------------------ for the public tasks


class DeploymentRecords:
    """Deployments and server credentials, in the caller's transaction."""

    def __init__(self, session: Session, sealer: Sealer = PLAINTEXT) -> None:
        self._session = session
        self._sealer = sealer

    def _rows(self, stmt: Any) -> list[DeploymentRow]:
        return [opened_row(self._sealer, row) for row in self._session.scalars(stmt)]

    def credential_hashes(self, server: str) -> list[tuple[str, str]]:
        """(stack id, credential hash) of each credential issued for `server`, in stacks that
        still exist."""
        stmt = (
            select(ServerCredential.stack_id, ServerCredential.credential_hash)
            .join(Stack, Stack.id == ServerCredential.stack_id)
            .where(ServerCredential.server == server, Stack.deleted_at.is_(None))
        )
        return [(stack_id, digest) for stack_id, digest in self._session.execute(stmt)]

    def pending_for_server(self, server: str, stack_ids: Iterable[str]) -> list[DeploymentRow]:
        """The deployments of `server` in these stacks whose action waits for the server."""
        stmt = (
            select(SoftwareDeploymentRow)
            .where(
                SoftwareDeploymentRow.server == server,
                SoftwareDeploymentRow.status == _PENDING,
                SoftwareDeploymentRow.stack_id.in_(list(stack_ids)),
            )
            .order_by(SoftwareDeploymentRow.created_at, SoftwareDeploymentRow.id)
        )
        return self._rows(stmt)

    def set_signal_hashes(self, hashes: Mapping[str, str]) -> None:
        """Record the hash of each deployment's signal credential (where it changed)."""
        table = SoftwareDeploymentRow
        for deployment_id, signal_hash in hashes.items():
            self._session.execute(
                update(table)
                .where(table.id == deployment_id, table.signal_hash.is_distinct_from(signal_hash))
                .values(signal_hash=signal_hash)
            )

    def lock(self, deployment_id: str) -> DeploymentRow | None:
        """The deployment, locked until the transaction ends."""
        stmt = select(SoftwareDeploymentRow).where(SoftwareDeploymentRow.id == deployment_id)
        found = self._rows(stmt.with_for_update())
        return found[0] if found else None

    def lock_of_resource(
        self, stack_id: str, resource_name: str, physical_id: str | None
    ) -> DeploymentRow | None:
        """The deployment a resource version made (its physical id), locked; None if it has
        none."""
        if physical_id is None:
            return None
        stmt = select(SoftwareDeploymentRow).where(
            SoftwareDeploymentRow.id == physical_id,
            SoftwareDeploymentRow.stack_id == stack_id,
            SoftwareDeploymentRow.resource_name == resource_name,
        )
        found = self._rows(stmt.with_for_update())
        return found[0] if found else None

    def of_stack(self, stack_id: str) -> list[DeploymentRow]:
        stmt = (
            select(SoftwareDeploymentRow)
            .where(SoftwareDeploymentRow.stack_id == stack_id)
            .order_by(SoftwareDeploymentRow.resource_name, SoftwareDeploymentRow.created_at)
        )
        return self._rows(stmt)

    def record_signal(
        self,
        deployment_id: str,
        *,
        now: datetime,
        started: bool,
        ended: tuple[str, str, Mapping[str, Any]] | None,
    ) -> None:
        """Record a server's signal on a deployment this transaction locked: that the server
        `started` its run, or that the run `ended` (status, reason, outputs)."""
        values: dict[str, Any] = {"signalled_at": now, "updated_at": now}
        if started:
            values["started_at"] = now
        if ended is not None:
            status, reason, outputs = ended
            sealed_outputs = self._sealer.seal_json(dict(outputs))
            values.update(status=status, status_reason=reason, outputs=sealed_outputs)
        self._session.execute(
            update(SoftwareDeploymentRow)
            .where(SoftwareDeploymentRow.id == deployment_id)
            .values(**values)
        )

    def issue_credential(
        self, tenant: str, stack_id: str, server: str, credential_hash: str, *, rotate: bool
    ) -> bool:
        """Store the hash of a new credential for the server. False (nothing written) if one
        was issued before and `rotate` is not set."""
        stmt = insert(ServerCredential).values(
            stack_id=stack_id, server=server, tenant=tenant, credential_hash=credential_hash
        )
        if rotate:
            stmt = stmt.on_conflict_do_update(
                index_elements=[ServerCredential.stack_id, ServerCredential.server],
                set_={"credential_hash": credential_hash, "created_at": func.now()},
            )
        else:
            stmt = stmt.on_conflict_do_nothing()
        return self._session.execute(stmt.returning(ServerCredential.server)).first() is not None

    def forget_stack(self, stack_id: str) -> None:
        """A deleted stack's credentials, and whatever deployments and configs it retained."""
        for model in (ServerCredential, SoftwareDeploymentRow, SoftwareConfigRow):
            self._session.execute(delete(model).where(model.stack_id == stack_id))
