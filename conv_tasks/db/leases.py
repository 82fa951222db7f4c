"""Ending the leases held on a stack's resources at once, as time would once their holders
died: the conformance kit resumes a stack after a worker it killed without waiting out the
lease (conv_tasks.testing). Never used by the engine, whose leases end by their terms."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, update

from conv_tasks.db.models import Resource
from conv_tasks.db.session import session_scope


def expire_leases(database_url: str, stack_id: str) -> int:
    """End every lease held on the stack's resources; how many there were."""
    with session_scope(database_url) as session:
        expired = session.execute(
            update(Resource)
            .where(Resource.stack_id == stack_id, Resource.lock_expires_at.is_not(None))
            .values(lock_expires_at=func.now() - timedelta(seconds=1))
        )
        return int(expired.rowcount)  # type: ignore[attr-defined]
