"""Resource versions: load them, add them, and change them by compare-and-swap.

Every write bumps `atomic_key`, and every write that must not race names the
`atomic_key` it read: whoever read an older one writes nothing. The resource
lock is a lease (holder, nonce, expiry) taken and released the same way, so a
node task never blocks a worker waiting for it, and a lock left by a killed
worker expires instead of wedging the resource.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from conv_tasks.db.models import Resource
from conv_tasks.db.validation import require_fields, require_id, require_positive, require_uuid

WRITABLE = frozenset(
    {
        "type",
        "physical_id",
        "action",
        "status",
        "status_reason",
        "template_id",
        "properties_data",
        "attr_data",
        "plugin_data",
        "definition_hash",
        "requires",
        "deletion_policy",
        "replaces",
        "replaced_by",
        "action_started_at",
    }
)


def versions(session: Session, stack_id: str) -> Sequence[Resource]:
    """Every version of every resource of the stack, oldest first."""
    stmt = select(Resource).where(Resource.stack_id == stack_id).order_by(Resource.id)
    return session.scalars(stmt).all()


def versions_of(session: Session, stack_id: str, name: str) -> Sequence[Resource]:
    """Every version of one resource, oldest first."""
    stmt = (
        select(Resource)
        .where(Resource.stack_id == stack_id, Resource.name == name)
        .order_by(Resource.version)
    )
    return session.scalars(stmt).all()


def get_version(session: Session, resource_id: int) -> Resource | None:
    return session.get(Resource, resource_id, populate_existing=True)


def add_version(session: Session, **fields: Any) -> Resource:
    """Insert a new resource version. (stack_id, name, version) is unique."""
    row = Resource(**fields)
    session.add(row)
    session.flush()
    return row


def add_versions(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert many new resource versions in one batched statement."""
    if rows:
        session.execute(insert(Resource), list(rows))


def acquire_lock(
    session: Session, resource_id: int, holder: str, nonce: str, ttl: float
) -> int | None:
    """Take (or renew) the lease on a resource version.

    Succeeds when the version is unlocked, its lease has expired, or the
    caller already holds it with the same nonce. Returns the new atomic_key,
    or None when another holder's lease is still live.
    """
    require_id(resource_id, "resource_id")
    require_uuid(holder, "holder")
    require_uuid(nonce, "nonce")
    seconds = require_positive(ttl, "ttl")
    stmt = (
        update(Resource)
        .where(
            Resource.id == resource_id,
            or_(
                Resource.lock_holder.is_(None),
                Resource.lock_expires_at < func.now(),
                Resource.lock_nonce == nonce,
            ),
        )
        .values(
            lock_holder=holder,
            lock_nonce=nonce,
            lock_expires_at=func.now() + timedelta(seconds=seconds),
            atomic_key=Resource.atomic_key + 1,
            updated_at=func.now(),
        )
        .returning(Resource.atomic_key)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).scalar_one_or_none()


def release_lock(session: Session, resource_id: int, nonce: str, **fields: Any) -> bool:
    """Release the lease held with `nonce`, writing `fields` in the same statement."""
    require_id(resource_id, "resource_id")
    require_uuid(nonce, "nonce")
    require_fields(fields, WRITABLE, "a resource")
    stmt = (
        update(Resource)
        .where(Resource.id == resource_id, Resource.lock_nonce == nonce)
        .values(
            lock_holder=None,
            lock_nonce=None,
            lock_expires_at=None,
            atomic_key=Resource.atomic_key + 1,
            updated_at=func.now(),
            **fields,
        )
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]


def update_locked(session: Session, resource_id: int, nonce: str, **fields: Any) -> bool:
    """Write `fields` on a version only while the caller's lease (nonce) holds it."""
    require_id(resource_id, "resource_id")
    require_uuid(nonce, "nonce")
    require_fields(fields, WRITABLE, "a resource")
    stmt = (
        update(Resource)
        .where(Resource.id == resource_id, Resource.lock_nonce == nonce)
        .values(atomic_key=Resource.atomic_key + 1, updated_at=func.now(), **fields)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]


def compare_and_swap(session: Session, resource_id: int, atomic_key: int, **fields: Any) -> bool:
    """Write `fields` only if the version still has `atomic_key` (nobody wrote since we read)."""
    require_id(resource_id, "resource_id")
    if isinstance(atomic_key, bool) or not isinstance(atomic_key, int):
        require_id(atomic_key, "atomic_key")
    require_fields(fields, WRITABLE, "a resource")
    stmt = (
        update(Resource)
        .where(Resource.id == resource_id, Resource.atomic_key == atomic_key)
        .values(atomic_key=Resource.atomic_key + 1, updated_at=func.now(), **fields)
        .execution_options(synchronize_session=False)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]


def delete_locked(session: Session, resource_id: int, nonce: str) -> bool:
    """Delete a version the caller holds the lease on."""
    require_id(resource_id, "resource_id")
    require_uuid(nonce, "nonce")
    stmt = delete(Resource).where(Resource.id == resource_id, Resource.lock_nonce == nonce)
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined]
