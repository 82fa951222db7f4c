"""Wait condition handles in PostgreSQL: their signals and their tokens' hashes.

PostgresWaitHandles is the WaitHandleStore the resource types use, each call
one short transaction of its own. HandleRecords serves the signal paths
inside the caller's transaction. No token is ever written here: only hashes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from conv_tasks.db.models import WaitConditionHandleRow
from conv_tasks.db.rows import HandleRow, freeze
from conv_tasks.db.session import session_scope
from conv_tasks.waitconditions import WaitSignal


def signals_of(row: WaitConditionHandleRow | HandleRow) -> tuple[WaitSignal, ...]:
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


class HandleRecords:
    """Wait condition handles, in the caller's transaction (the signal paths)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def _locked(self, *conditions: Any) -> HandleRow | None:
        stmt = select(WaitConditionHandleRow).where(*conditions).with_for_update()
        row = self._session.scalars(stmt).one_or_none()
        return None if row is None else freeze(HandleRow, row)

    def lock(self, handle_id: str) -> HandleRow | None:
        """The handle, locked until the transaction ends."""
        return self._locked(WaitConditionHandleRow.id == handle_id)

    def lock_of_resource(self, stack_id: str, physical_id: str | None) -> HandleRow | None:
        """The live handle a resource version of the stack made (its physical id), locked."""
        if physical_id is None:
            return None
        return self._locked(
            WaitConditionHandleRow.id == physical_id,
            WaitConditionHandleRow.stack_id == stack_id,
            WaitConditionHandleRow.deleted_at.is_(None),
        )

    def save_signals(self, handle_id: str, signals: Sequence[WaitSignal]) -> None:
        """The signals a handle this transaction locked now holds."""
        self._session.execute(
            update(WaitConditionHandleRow)
            .where(WaitConditionHandleRow.id == handle_id)
            .values(signals=[s.to_json() for s in signals], updated_at=datetime.now(UTC))
        )
