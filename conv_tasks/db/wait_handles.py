"""Wait condition handles in PostgreSQL: their signals and their tokens' hashes.

PostgresWaitHandles is the WaitHandleStore the resource types use, each call
one short transaction of its own. lock_handle and save_signals serve the
signal paths inside the caller's session. No token is ever written here:
only hashes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from conv_tasks.db.models import WaitConditionHandleRow
from conv_tasks.db.session import session_scope
from conv_tasks.waitconditions.signals import WaitSignal


def signals_of(row: WaitConditionHandleRow) -> tuple[WaitSignal, ...]:
    return tuple(WaitSignal.from_json(raw) for raw in row.signals or ())


class PostgresWaitHandles:
    """Implements conv_tasks.waitconditions.store.WaitHandleStore on wait_condition_handle."""

    def __init__(self, database_url: str | None = None) -> None:
        self._url = database_url

    def create_handle(
        self, handle_id: str, stack_id: str, resource_name: str, credential_hash: str | None
    ) -> None:
        now = datetime.now(UTC)
        with session_scope(self._url) as session:
            session.execute(
                insert(WaitConditionHandleRow)
                .values(
                    id=handle_id,
                    stack_id=stack_id,
                    resource_name=resource_name,
                    credential_hash=credential_hash,
                    signals=[],
                    updated_at=now,
                )
                .on_conflict_do_update(
                    index_elements=[WaitConditionHandleRow.id],
                    set_={
                        "credential_hash": credential_hash,
                        "deleted_at": None,
                        "updated_at": now,
                    },
                )
            )

    def signals(self, handle_id: str, stack_id: str) -> tuple[WaitSignal, ...] | None:
        with session_scope(self._url) as session:
            row = session.scalars(
                select(WaitConditionHandleRow).where(
                    WaitConditionHandleRow.id == handle_id,
                    WaitConditionHandleRow.stack_id == stack_id,
                    WaitConditionHandleRow.deleted_at.is_(None),
                )
            ).one_or_none()
            return None if row is None else signals_of(row)

    def clear(self, handle_id: str) -> None:
        self._set(handle_id, signals=[])

    def remove(self, handle_id: str) -> None:
        self._set(handle_id, deleted_at=datetime.now(UTC))

    def _set(self, handle_id: str, **values: object) -> None:
        with session_scope(self._url) as session:
            session.execute(
                update(WaitConditionHandleRow)
                .where(WaitConditionHandleRow.id == handle_id)
                .values(**values, updated_at=datetime.now(UTC))
            )


def lock_handle(session: Session, handle_id: str) -> WaitConditionHandleRow | None:
    """The handle, locked until the session's transaction ends."""
    stmt = select(WaitConditionHandleRow).where(WaitConditionHandleRow.id == handle_id)
    return session.scalars(stmt.with_for_update()).one_or_none()


def lock_handle_of_resource(
    session: Session, stack_id: str, physical_id: str | None
) -> WaitConditionHandleRow | None:
    """The live handle a resource version of the stack made (its physical id), locked."""
    if physical_id is None:
        return None
    stmt = select(WaitConditionHandleRow).where(
        WaitConditionHandleRow.id == physical_id,
        WaitConditionHandleRow.stack_id == stack_id,
        WaitConditionHandleRow.deleted_at.is_(None),
    )
    return session.scalars(stmt.with_for_update()).one_or_none()


def save_signals(
    session: Session, row: WaitConditionHandleRow, signals: Sequence[WaitSignal]
) -> None:
    row.signals = [s.to_json() for s in signals]
    row.updated_at = datetime.now(UTC)
    session.flush()
