"""The graph node's path through PostgreSQL: one named operation per step, one statement each.

A node claims (its traversal is current, it takes the lease, it reads every
version of its resource), may start a new version, writes its outcome, or
drops purged versions. Each operation is a single SQL statement built once
(conv_tasks.db.node_statements: CTEs and RETURNING do the reading, writing,
event and waking together), run on an autocommit connection: one round
trip, atomic by itself. Every write
names the lease nonce that allows it, so a node whose lease was taken over
writes nothing. A statement that releases a lease also returns the node that
waited for it, so waking a waiter costs nothing when nobody waits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping
from sqlalchemy.exc import IntegrityError

from conv_tasks.db import node_statements as sql
from conv_tasks.db.node_statements import WRITABLE
from conv_tasks.db.sealed_columns import open_column
from conv_tasks.db.validation import require_fields, require_id, require_positive, require_uuid
from conv_tasks.secrets_at_rest import PLAINTEXT, Sealer


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
    action_deadline: datetime | None = None
    interrupt_reason: str | None = None  # a cancel or a delete asked the action to stop
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
    tenant: str = ""


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


def _version(row: RowMapping, held: bool, sealer: Sealer = PLAINTEXT) -> ResourceVersion:
    def opened(column: str) -> Any:
        return open_column(sealer, "resource", column, row[column]) or {}

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
        properties=opened("properties_data"),
        attributes=opened("attr_data"),
        plugin_data=opened("plugin_data"),
        definition_hash=row["definition_hash"],
        requires=tuple(row["requires"] or ()),
        deletion_policy=row["deletion_policy"],
        replaces=row["replaces"],
        replaced_by=row["replaced_by"],
        lock_nonce=row["lock_nonce"],
        action_started_at=row["action_started_at"],
        action_deadline=row["action_deadline"],
        interrupt_reason=row["interrupt_reason"],
        held=held,
    )


def version_of(row: Mapping[str, Any], sealer: Sealer = PLAINTEXT) -> ResourceVersion:
    """A resource version from its row's columns, as a node would read it (not held)."""
    return _version(row, False, sealer)  # type: ignore[arg-type]


def _event_params(events: Sequence[NodeEvent], rids: Sequence[int]) -> dict[str, list[Any]]:
    return {
        "ev_rid": list(rids),
        "ev_action": [str(e.action) for e in events],
        "ev_status": [str(e.status) for e in events],
        "ev_reason": [e.reason for e in events],
        "ev_physical": [e.physical_id for e in events],
    }


def _param(name: str, value: Any, sealer: Sealer) -> Any:
    if name in sql.JSON_COLUMNS:
        if name == "requires":
            return json.dumps(list(value))
        return json.dumps(sealer.seal_json(dict(value)))
    return str(value) if name in ("action", "status") else value


class NodeStore:
    """The repository operations of one node delivery, on one autocommit connection. The
    sealed columns (conv_tasks.db.sealed_columns) are sealed and opened with `sealer`, in
    the statements the node runs anyway: sealing adds no round trip."""

    def __init__(
        self,
        conn: Connection,
        *,
        stack_id: str,
        traversal: str,
        template_id: int,
        nonce: str,
        continues: str | None = None,
        sealer: Sealer = PLAINTEXT,
    ) -> None:
        self._conn = conn
        self._sealer = sealer
        self.stack_id = require_uuid(stack_id, "stack_id")
        self.traversal = require_uuid(traversal, "traversal")
        self.template_id = require_id(template_id, "template_id")
        self.nonce = require_uuid(nonce, "nonce")
        # The lease this delivery's message continues (a poll's, a retry's): its claim may
        # take it over; it then holds it under `nonce`, its own.
        self.continues = None if continues is None else require_uuid(continues, "continues")

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
            sql.CLAIM,
            {
                "stack_id": self.stack_id,
                "name": name,
                "traversal": self.traversal,
                "template_id": self.template_id,
                "nonce": self.nonce,
                "continues": self.continues,
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
                    tenant=row["tenant"],
                )
                queued = bool(row["queued"])
            if row["id"] is not None:
                versions.append(_version(row, bool(row["held"]), self._sealer))
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
        """A new version replaces the head we hold; returns it (None if our lease was lost, or
        another node made that version first) and the nodes that waited for the head."""
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
        params.update({name: _param(name, value, self._sealer) for name, value in fields.items()})
        params.setdefault("action_deadline", None)
        try:
            row = self._conn.execute(sql.START_VERSION, params).mappings().first()
        except IntegrityError:
            # Another node made that version first (our lease had run out).
            return None, ()
        if row is None:
            return None, ()
        return _version(row, True, self._sealer), tuple(w for w in (row["woken"],) if w)

    def reinstate(
        self, head: ResourceVersion, keep: ResourceVersion, *, reason: str, ttl: float
    ) -> tuple[ResourceVersion | None, tuple[str, ...]]:
        """`keep` becomes the head under our lease; None if it is no longer as read (another
        node leased it, or it changed)."""
        row = (
            self._conn.execute(
                sql.REINSTATE,
                {
                    "head_id": head.id,
                    "keep_id": keep.id,
                    "keep_hash": keep.definition_hash,
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
        return _version(row, True, self._sealer), tuple(w for w in (row["woken"],) if w)

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
        statement = sql.write_statement(names, release, purge is not None)
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
        params.update({f"f_{name}": _param(name, fields[name], self._sealer) for name in names})
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
        rows = self._conn.execute(sql.DROP, params).all()
        return frozenset(rid for rid, _ in rows), tuple(woken for _, woken in rows if woken)

    def waiting(self, name: str, waiter: str) -> bool:
        """Whether `waiter` is still written down as waiting for a version of `name`."""
        found = self._conn.execute(
            sql.WAITING, {"stack_id": self.stack_id, "name": name, "waiter": waiter}
        ).scalar()
        return bool(found)

    def event(self, name: str, action: str, status: str, reason: str) -> None:
        """Record an event about a resource that has no version to write on."""
        self._conn.execute(
            sql.EVENT,
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
            sql.OUTPUTS, {"stack_id": self.stack_id, "names": sorted(set(names))}
        ).all()
        return {
            name: open_column(self._sealer, "resource", "attr_data", data) or {}
            for name, data in rows
        }

    def template(self, template_id: int) -> tuple[str, str, str, str, str | None] | None:
        """A stored template, its parameters, environment, files and facade (JSON null, or
        None for rows from before migration 0010, when it is not a nested stack's), as JSON
        text; None if it is gone."""
        row = self._conn.execute(sql.TEMPLATE, {"id": template_id}).first()
        if row is None:
            return None
        names = ("template", "parameters", "environment", "files", "facade")
        texts = [
            self._sealer.open_json_text(text, where=f"raw_template.{name}")
            for name, text in zip(names, row, strict=True)
        ]
        template, parameters, environment, files = (str(text) for text in texts[:4])
        return template, parameters, environment, files, texts[4]
