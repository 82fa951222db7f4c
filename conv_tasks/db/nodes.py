"""The graph node's path through PostgreSQL: one named operation per step, one statement each.

A node claims (its traversal is current, it takes the lease, it reads every
version of its resource), may start a new version, writes its outcome, or
drops purged versions. Each operation is a single SQL statement built once
(CTEs and RETURNING do the reading, writing, event and waking together), run
on an autocommit connection: one round trip, atomic by itself. Every write
names the lease nonce that allows it, so a node whose lease was taken over
writes nothing. A statement that releases a lease also returns the node that
waited for it, so waking a waiter costs nothing when nobody waits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, RowMapping, TextClause, text

from conv_tasks.db.validation import require_fields, require_id, require_positive, require_uuid

# Columns of a version that a node reads, in this order.
_COLUMNS = (
    "id",
    "name",
    "version",
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
    "lock_nonce",
    "action_started_at",
)
_JSON_COLUMNS = frozenset({"properties_data", "attr_data", "plugin_data", "requires"})
# What a node may write on a version it holds.
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
        "action_started_at",
    }
)


def _cols(alias: str = "") -> str:
    return ", ".join(f"{alias}{name}" for name in _COLUMNS)


_FREE = "(r.lock_holder IS NULL OR r.lock_expires_at < now() OR r.lock_nonce = :nonce)"
_LEASE = "lock_expires_at = now() + make_interval(secs => :ttl)"
_RELEASE = "lock_holder = NULL, lock_nonce = NULL, lock_expires_at = NULL, waiter = NULL"
_EVENTS = """unnest(CAST(:ev_rid AS bigint[]), CAST(:ev_action AS text[]),
               CAST(:ev_status AS text[]), CAST(:ev_reason AS text[]),
               CAST(:ev_physical AS text[]))
        WITH ORDINALITY AS e(rid, action, status, reason, physical_id, ord)"""
_INSERT_EVENTS = f"""INSERT INTO event (stack_id, resource_name, physical_id, action, status,
                       reason, traversal)
    SELECT :stack_id, :name, e.physical_id, e.action, e.status, e.reason, :traversal
    FROM {_EVENTS}"""

# Claim: is the traversal current, take the lease on the targets (the head for an update
# node; the versions to purge for a clean-up node), else note us as the waiter of one that
# another node holds, and return the stack's state with every version of the resource.
_CLAIM = text(
    f"""
WITH st AS (
    SELECT current_traversal = :traversal AND raw_template_id = :template_id
               AND status = 'IN_PROGRESS' AS is_current,
           action, raw_template_id, timeout_mins, operation_started_at
    FROM stack WHERE id = :stack_id AND deleted_at IS NULL
),
known AS (
    SELECT r.id, r.version, r.replaced_by, {_FREE} AS free
    FROM resource r WHERE r.stack_id = :stack_id AND r.name = :name
),
head AS (SELECT id FROM known WHERE replaced_by IS NULL ORDER BY version DESC LIMIT 1),
targets AS (
    SELECT k.id, k.version, k.free FROM known k
    WHERE CASE WHEN :cleanup THEN NOT :in_template OR k.id NOT IN (SELECT id FROM head)
               ELSE k.id IN (SELECT id FROM head) END
),
claimed AS (
    UPDATE resource r
    SET lock_holder = :traversal, lock_nonce = :nonce, {_LEASE}, atomic_key = r.atomic_key + 1
    FROM st, targets t
    WHERE r.id = t.id AND t.free AND {_FREE}
      AND (st.is_current OR r.lock_nonce = :nonce)
      AND (:cleanup OR r.replaced_by IS NULL)
    RETURNING {_cols("r.")}
),
queued AS (
    UPDATE resource r SET waiter = :waiter
    FROM st
    WHERE st.is_current AND NOT {_FREE}
      AND r.id = (SELECT id FROM targets WHERE NOT free ORDER BY version DESC LIMIT 1)
    RETURNING r.id
)
SELECT st.is_current, st.action AS stack_action, st.raw_template_id, st.timeout_mins,
       st.operation_started_at, EXISTS (SELECT 1 FROM queued) AS queued,
       v.id IN (SELECT id FROM claimed) AS held, v.*
FROM st LEFT JOIN (
    SELECT {_cols()} FROM claimed
    UNION ALL
    SELECT {_cols()} FROM resource
    WHERE stack_id = :stack_id AND name = :name AND id NOT IN (SELECT id FROM claimed)
) v ON true
ORDER BY v.version
"""
)

# Start a new version that takes over from the head we hold: insert it under our lease,
# mark the head replaced (handing it the physical resource, for an update in place), release
# the head, record the IN_PROGRESS event.
_START_VERSION = text(
    f"""
WITH prior AS (
    SELECT id, waiter FROM resource WHERE id = :head_id AND lock_nonce = :nonce FOR UPDATE
),
fresh AS (SELECT nextval(pg_get_serial_sequence('resource', 'id')) AS id FROM prior),
old AS (
    UPDATE resource r
    SET replaced_by = fresh.id,
        physical_id = CASE WHEN :in_place THEN NULL ELSE r.physical_id END,
        {_RELEASE}, atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior, fresh WHERE r.id = prior.id
    RETURNING prior.waiter AS woken
),
new AS (
    INSERT INTO resource (id, stack_id, name, version, type, physical_id, action, status,
        status_reason, template_id, properties_data, attr_data, plugin_data, definition_hash,
        requires, deletion_policy, replaces, lock_holder, lock_nonce, lock_expires_at,
        action_started_at, atomic_key)
    SELECT fresh.id, :stack_id, :name, :version, :type, :physical_id, :action, 'IN_PROGRESS',
        :status_reason, :template_id, CAST(:properties_data AS jsonb), '{{}}',
        CAST(:plugin_data AS jsonb), :definition_hash, CAST(:requires AS jsonb),
        :deletion_policy, :head_id, :traversal, :nonce,
        now() + make_interval(secs => :ttl), :action_started_at, 0
    FROM fresh
    RETURNING {_cols()}
),
logged AS (
    INSERT INTO event (stack_id, resource_name, physical_id, action, status, reason, traversal)
    SELECT :stack_id, :name, new.physical_id, :action, 'IN_PROGRESS', :reason, :traversal
    FROM new
)
SELECT new.*, true AS held, (SELECT woken FROM old) AS woken FROM new
"""
)

# Reinstate an older version that already matches the definition: it becomes the head under
# our lease, the head we hold is marked replaced by it and released.
_REINSTATE = text(
    f"""
WITH prior AS (
    SELECT id, waiter FROM resource WHERE id = :head_id AND lock_nonce = :nonce FOR UPDATE
),
keep AS (
    UPDATE resource r
    SET replaced_by = NULL, lock_holder = :traversal, lock_nonce = :nonce, {_LEASE},
        atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior WHERE r.id = :keep_id AND {_FREE}
    RETURNING {_cols("r.")}
),
old AS (
    UPDATE resource r
    SET replaced_by = :keep_id, {_RELEASE}, atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior, keep WHERE r.id = prior.id
    RETURNING prior.waiter AS woken
),
logged AS (
    INSERT INTO event (stack_id, resource_name, physical_id, action, status, reason, traversal)
    SELECT :stack_id, :name, keep.physical_id, 'UPDATE', 'COMPLETE', :reason, :traversal
    FROM keep
)
SELECT keep.*, true AS held, (SELECT woken FROM old) AS woken FROM keep
"""
)

# Delete versions we hold (purged by a clean-up node), with their events.
_DROP = text(
    f"""
WITH gone AS (
    DELETE FROM resource WHERE id = ANY(CAST(:ids AS bigint[])) AND lock_nonce = :nonce
    RETURNING id, waiter AS woken
),
logged AS (
    {_INSERT_EVENTS}
    WHERE e.rid IN (SELECT id FROM gone)
    ORDER BY e.ord
)
SELECT id, woken FROM gone
"""
)

_EVENT = text(
    """
INSERT INTO event (stack_id, resource_name, physical_id, action, status, reason, traversal)
VALUES (:stack_id, :name, NULL, :action, :status, :reason, :traversal)
"""
)

_OUTPUTS = text(
    """
SELECT DISTINCT ON (name) name, attr_data FROM resource
WHERE stack_id = :stack_id AND name = ANY(CAST(:names AS text[])) AND replaced_by IS NULL
ORDER BY name, version DESC
"""
)

_TEMPLATE = text("SELECT template::text, parameters::text FROM raw_template WHERE id = :id")


@lru_cache(maxsize=64)
def _write_statement(fields: tuple[str, ...], release: bool, purge: bool) -> TextClause:
    """The statement writing `fields` on a version we hold; built once per shape."""
    assign = [
        f"{name} = CAST(:f_{name} AS jsonb)" if name in _JSON_COLUMNS else f"{name} = :f_{name}"
        for name in fields
    ]
    assign.append(_RELEASE if release else _LEASE)
    woken = "prior.waiter" if release else "NULL::text"
    purged = (
        """,
purged AS (
    DELETE FROM resource d USING written
    WHERE d.id = :purge AND d.physical_id IS NULL
      AND (d.lock_holder IS NULL OR d.lock_expires_at < now())
    RETURNING d.waiter AS woken
)"""
        if purge
        else ""
    )
    tail = "\nUNION ALL SELECT 'purged', woken FROM purged" if purge else ""
    return text(
        f"""
WITH prior AS (
    SELECT id, waiter FROM resource WHERE id = :id AND lock_nonce = :nonce FOR UPDATE
),
written AS (
    UPDATE resource r SET {", ".join(assign)}, atomic_key = r.atomic_key + 1, updated_at = now()
    FROM prior WHERE r.id = prior.id
    RETURNING r.id, {woken} AS woken
){purged},
logged AS (
    {_INSERT_EVENTS}, written
    ORDER BY e.ord
)
SELECT 'written' AS what, woken FROM written{tail}
"""
    )


@dataclass(frozen=True)
class ResourceVersion:
    """One version of one resource, as a node reads it."""

    id: int
    name: str
    version: int
    type: str
    physical_id: str | None
    action: str
    status: str
    status_reason: str
    template_id: int | None
    properties: Mapping[str, Any]
    attributes: Mapping[str, Any]
    plugin_data: Mapping[str, Any]
    definition_hash: str | None
    requires: tuple[str, ...]
    deletion_policy: str
    replaces: int | None
    replaced_by: int | None
    lock_nonce: str | None
    action_started_at: datetime | None
    held: bool = False  # this node holds the lease on it


@dataclass(frozen=True)
class StackState:
    """What a node needs of its stack row."""

    # The node's traversal (and template) are the stack's, and the stack operation is running.
    current: bool
    action: str
    template_id: int | None
    timeout_mins: int | None
    started_at: datetime | None


@dataclass(frozen=True)
class Claim:
    """What a node found when it claimed its resource."""

    stack: StackState | None  # None: the stack is gone
    versions: tuple[ResourceVersion, ...]  # oldest first
    queued: bool  # another node holds a target: we are its waiter


@dataclass(frozen=True)
class NodeEvent:
    """An event to record about a resource, in the statement that changes it."""

    action: str
    status: str
    reason: str = ""
    physical_id: str | None = None


@dataclass(frozen=True)
class Written:
    """The outcome of a write: did our lease still hold, was the replaced version purged, and
    which nodes waited for the leases that were released."""

    ok: bool
    purged: bool = False
    woken: tuple[str, ...] = ()


def _version(row: RowMapping, held: bool) -> ResourceVersion:
    return ResourceVersion(
        id=row["id"],
        name=row["name"],
        version=row["version"],
        type=row["type"],
        physical_id=row["physical_id"],
        action=row["action"],
        status=row["status"],
        status_reason=row["status_reason"] or "",
        template_id=row["template_id"],
        properties=row["properties_data"] or {},
        attributes=row["attr_data"] or {},
        plugin_data=row["plugin_data"] or {},
        definition_hash=row["definition_hash"],
        requires=tuple(row["requires"] or ()),
        deletion_policy=row["deletion_policy"],
        replaces=row["replaces"],
        replaced_by=row["replaced_by"],
        lock_nonce=row["lock_nonce"],
        action_started_at=row["action_started_at"],
        held=held,
    )


def _event_params(events: Sequence[NodeEvent], rids: Sequence[int]) -> dict[str, list[Any]]:
    return {
        "ev_rid": list(rids),
        "ev_action": [str(e.action) for e in events],
        "ev_status": [str(e.status) for e in events],
        "ev_reason": [e.reason for e in events],
        "ev_physical": [e.physical_id for e in events],
    }


def _param(name: str, value: Any) -> Any:
    if name in _JSON_COLUMNS:
        return json.dumps(list(value) if name == "requires" else dict(value))
    return str(value) if name in ("action", "status") else value


class NodeStore:
    """The repository operations of one node delivery, on one autocommit connection."""

    def __init__(
        self, conn: Connection, *, stack_id: str, traversal: str, template_id: int, nonce: str
    ) -> None:
        self._conn = conn
        self.stack_id = require_uuid(stack_id, "stack_id")
        self.traversal = require_uuid(traversal, "traversal")
        self.template_id = require_id(template_id, "template_id")
        self.nonce = require_uuid(nonce, "nonce")

    def claim(
        self, name: str, *, cleanup: bool, in_template: bool, ttl: float, waiter: str
    ) -> Claim:
        """Check the traversal, take the lease on the targets, read every version of `name`.

        An update node targets the head version; a clean-up node every other
        version (every version, when the name left the template). A target
        another node holds gets `waiter` recorded instead.
        """
        require_positive(ttl, "ttl")
        rows = self._conn.execute(
            _CLAIM,
            {
                "stack_id": self.stack_id,
                "name": name,
                "traversal": self.traversal,
                "template_id": self.template_id,
                "nonce": self.nonce,
                "ttl": float(ttl),
                "cleanup": cleanup,
                "in_template": in_template,
                "waiter": waiter,
            },
        ).mappings()
        stack: StackState | None = None
        versions: list[ResourceVersion] = []
        queued = False
        for row in rows:
            if stack is None:
                stack = StackState(
                    current=bool(row["is_current"]),
                    action=row["stack_action"],
                    template_id=row["raw_template_id"],
                    timeout_mins=row["timeout_mins"],
                    started_at=row["operation_started_at"],
                )
                queued = bool(row["queued"])
            if row["id"] is not None:
                versions.append(_version(row, bool(row["held"])))
        return Claim(stack, tuple(versions), queued)

    def start_version(
        self,
        head: ResourceVersion,
        *,
        version: int,
        in_place: bool,
        fields: Mapping[str, Any],
        reason: str,
        ttl: float,
    ) -> tuple[ResourceVersion | None, tuple[str, ...]]:
        """A new version replaces the head we hold; returns it (None if our lease was lost)
        and the nodes that waited for the head."""
        params = {
            "head_id": head.id,
            "nonce": self.nonce,
            "traversal": self.traversal,
            "stack_id": self.stack_id,
            "name": head.name,
            "version": version,
            "in_place": in_place,
            "reason": reason,
            "ttl": float(ttl),
        }
        require_fields(dict(fields), WRITABLE, "a resource version")
        params.update({name: _param(name, value) for name, value in fields.items()})
        row = self._conn.execute(_START_VERSION, params).mappings().first()
        if row is None:
            return None, ()
        return _version(row, True), tuple(w for w in (row["woken"],) if w)

    def reinstate(
        self, head: ResourceVersion, keep: ResourceVersion, *, reason: str, ttl: float
    ) -> tuple[ResourceVersion | None, tuple[str, ...]]:
        """`keep` becomes the head under our lease; None if another node holds it."""
        row = (
            self._conn.execute(
                _REINSTATE,
                {
                    "head_id": head.id,
                    "keep_id": keep.id,
                    "nonce": self.nonce,
                    "traversal": self.traversal,
                    "stack_id": self.stack_id,
                    "name": head.name,
                    "reason": reason,
                    "ttl": float(ttl),
                },
            )
            .mappings()
            .first()
        )
        if row is None:
            return None, ()
        return _version(row, True), tuple(w for w in (row["woken"],) if w)

    def write(
        self,
        version: ResourceVersion,
        fields: Mapping[str, Any],
        events: Sequence[NodeEvent] = (),
        *,
        release: bool = True,
        ttl: float = 0.0,
        purge: int | None = None,
    ) -> Written:
        """Write `fields` on a version we hold, with its events; release the lease or renew it.

        `purge` names a replaced version to delete in the same statement if
        it holds no physical resource and nobody holds it.
        """
        require_fields(dict(fields), WRITABLE, "a resource version")
        names = tuple(sorted(fields))
        statement = _write_statement(names, release, purge is not None)
        params: dict[str, Any] = {
            "id": version.id,
            "nonce": self.nonce,
            "stack_id": self.stack_id,
            "name": version.name,
            "traversal": self.traversal,
            "ttl": float(ttl),
            "purge": purge,
            **_event_params(events, [version.id] * len(events)),
        }
        params.update({f"f_{name}": _param(name, fields[name]) for name in names})
        rows = self._conn.execute(statement, params).all()
        written = any(what == "written" for what, _ in rows)
        return Written(
            ok=written,
            purged=any(what == "purged" for what, _ in rows),
            woken=tuple(woken for _, woken in rows if woken),
        )

    def drop(
        self, versions: Iterable[ResourceVersion], events: Mapping[int, Sequence[NodeEvent]]
    ) -> tuple[frozenset[int], tuple[str, ...]]:
        """Delete versions we hold, recording `events` of those that went. Returns the ids
        deleted and the nodes that waited for them."""
        ids = [v.id for v in versions]
        if not ids:
            return frozenset(), ()
        name = next(v.name for v in versions)
        flat = [(rid, event) for rid in ids for event in events.get(rid, ())]
        params = {
            "ids": ids,
            "nonce": self.nonce,
            "stack_id": self.stack_id,
            "name": name,
            "traversal": self.traversal,
            **_event_params([e for _, e in flat], [rid for rid, _ in flat]),
        }
        rows = self._conn.execute(_DROP, params).all()
        return frozenset(rid for rid, _ in rows), tuple(woken for _, woken in rows if woken)

    def event(self, name: str, action: str, status: str, reason: str) -> None:
        """Record an event about a resource that has no version to write on."""
        self._conn.execute(
            _EVENT,
            {
                "stack_id": self.stack_id,
                "name": name,
                "action": str(action),
                "status": str(status),
                "reason": reason,
                "traversal": self.traversal,
            },
        )

    def outputs(self, names: Iterable[str]) -> dict[str, Mapping[str, Any]]:
        """The stored outputs (attr_data) of the head versions of `names`."""
        rows = self._conn.execute(
            _OUTPUTS, {"stack_id": self.stack_id, "names": sorted(set(names))}
        ).all()
        return {name: data or {} for name, data in rows}

    def template(self, template_id: int) -> tuple[str, str] | None:
        """A stored template and its parameters, as JSON text; None if it is gone."""
        row = self._conn.execute(_TEMPLATE, {"id": template_id}).first()
        return None if row is None else (row[0], row[1])
