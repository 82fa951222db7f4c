"""The graph node's path through PostgreSQL: one named operation per step, one statement each.

A node claims (its traversal is current, it takes the lease, it reads every
version of its resource), may start a new version, writes its outcome, or
drops purged versions. Each operation is a single SQL statement built once
(conv_tasks.db.node_statements: CTEs and RETURNING do the reading, writing,
event and waking together), run on an autocommit connection: one round
trip, atomic by itself. The statements go straight to the psycopg connection
under the SQLAlchemy one, compiled once: SQLAlchemy's execution and result
layers cost a node more CPU than the rest of its repository work (issue 23).
Its exceptions are still SQLAlchemy's (IntegrityError, OperationalError: what
callers and TRANSIENT_FAULTS expect), without parameters, and a connection that
broke is invalidated so that the pool does not lend it again. Every write
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

import psycopg
from psycopg.rows import tuple_row
from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError

from conv_tasks.db import node_statements as sql
from conv_tasks.db.node_statements import COLUMNS, WRITABLE
from conv_tasks.db.sealed_columns import open_column
from conv_tasks.db.session import count_statement
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
    # PostgreSQL's clock as it claimed (None: the stack is gone). Deadlines are decided by it,
    # never by a worker's clock, which may run ahead or behind on its host (issue 23).
    now: datetime | None = None


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


_WIDTH = len(COLUMNS)
# Where a claim row's version columns begin: after the stack's state, PostgreSQL's now(),
# `queued` and `held`.
_CLAIM_VERSION_AT = 9


def _version(
    row: Sequence[Any], held: bool, sealer: Sealer = PLAINTEXT, at: int = 0
) -> ResourceVersion:
    """The version whose columns (in COLUMNS' order) begin at `at` in `row`."""
    (
        id_, name, version, type_, physical_id, action, status, status_reason, template_id,
        properties, attributes, plugin_data, definition_hash, requires, deletion_policy,
        replaces, replaced_by, lock_nonce, action_started_at, action_deadline, interrupt_reason,
    ) = row[at : at + _WIDTH]  # fmt: skip
    return ResourceVersion(
        id=id_,
        name=name,
        version=version,
        type=type_,
        physical_id=physical_id,
        action=action,
        status=status,
        status_reason=status_reason or "",
        template_id=template_id,
        properties=open_column(sealer, "resource", "properties_data", properties) or {},
        attributes=open_column(sealer, "resource", "attr_data", attributes) or {},
        plugin_data=open_column(sealer, "resource", "plugin_data", plugin_data) or {},
        definition_hash=definition_hash,
        requires=tuple(requires or ()),
        deletion_policy=deletion_policy,
        replaces=replaces,
        replaced_by=replaced_by,
        lock_nonce=lock_nonce,
        action_started_at=action_started_at,
        action_deadline=action_deadline,
        interrupt_reason=interrupt_reason,
        held=held,
    )


def version_of(row: Mapping[str, Any], sealer: Sealer = PLAINTEXT) -> ResourceVersion:
    """A resource version from its row's columns, as a node would read it (not held)."""
    return _version([row[name] for name in COLUMNS], False, sealer)


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
        driver = conn.connection.driver_connection
        if not isinstance(driver, psycopg.Connection):
            raise TypeError(f"a node store runs on psycopg 3, not {type(driver).__name__}")
        self._driver: psycopg.Connection[Any] = driver
        self._sealer = sealer
        self.stack_id = require_uuid(stack_id, "stack_id")
        self.traversal = require_uuid(traversal, "traversal")
        self.template_id = require_id(template_id, "template_id")
        self.nonce = require_uuid(nonce, "nonce")
        # The lease this delivery's message continues (a poll's, a retry's): its claim may
        # take it over; it then holds it under `nonce`, its own.
        self.continues = None if continues is None else require_uuid(continues, "continues")

    def _run(self, query: str, params: Mapping[str, Any], *, rows: bool = True) -> list[Any]:
        """One statement on the driver's connection; its rows as tuples."""
        count_statement()
        try:
            with self._driver.cursor(row_factory=tuple_row) as cursor:
                cursor.execute(query, params)
                return cursor.fetchall() if rows else []
        except psycopg.Error as exc:
            if self._driver.closed or self._driver.broken:
                self._conn.invalidate()  # never lent again: the next node gets a fresh one
            raise DBAPIError.instance(
                query, params, exc, psycopg.Error, hide_parameters=True
            ) from exc

    def claim(
        self, name: str, *, cleanup: bool, in_template: bool, ttl: float, waiter: str
    ) -> Claim:
        """Check the traversal, take the lease on the targets, read every version of `name`.

        An update node targets the head version; a clean-up node every other
        version (every version, when the name left the template). A target
        another node holds gets `waiter` recorded instead.
        """
        require_positive(ttl, "ttl")
        rows = self._run(
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
        )
        stack: StackState | None = None
        versions: list[ResourceVersion] = []
        queued = False
        now: datetime | None = None
        for row in rows:
            if stack is None:
                current, action, template_id, timeout_mins, started_at, tenant = row[:6]
                stack = StackState(
                    current=bool(current),
                    action=action,
                    template_id=template_id,
                    timeout_mins=timeout_mins,
                    started_at=started_at,
                    tenant=tenant,
                )
                now = row[6]
                queued = bool(row[7])
            if row[_CLAIM_VERSION_AT] is not None:
                held = bool(row[_CLAIM_VERSION_AT - 1])
                versions.append(_version(row, held, self._sealer, _CLAIM_VERSION_AT))
        return Claim(stack, tuple(versions), queued, now)

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
            rows = self._run(sql.START_VERSION, params)
        except IntegrityError:
            # Another node made that version first (our lease had run out).
            return None, ()
        return self._taken(rows)

    def _taken(self, rows: list[Any]) -> tuple[ResourceVersion | None, tuple[str, ...]]:
        """The version a statement returned under our lease (its columns, held, woken)."""
        if not rows:
            return None, ()
        row = rows[0]
        woken = row[_WIDTH + 1]
        return _version(row, True, self._sealer), (woken,) if woken else ()

    def reinstate(
        self, head: ResourceVersion, keep: ResourceVersion, *, reason: str, ttl: float
    ) -> tuple[ResourceVersion | None, tuple[str, ...]]:
        """`keep` becomes the head under our lease; None if it is no longer as read (another
        node leased it, or it changed)."""
        rows = self._run(
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
        return self._taken(rows)

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
        rows = self._run(statement, params)
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
        rows = self._run(sql.DROP, params)
        return frozenset(rid for rid, _ in rows), tuple(woken for _, woken in rows if woken)

    def waiting(self, name: str, waiter: str) -> bool:
        """Whether `waiter` is still written down as waiting for a version of `name`."""
        rows = self._run(sql.WAITING, {"stack_id": self.stack_id, "name": name, "waiter": waiter})
        return bool(rows and rows[0][0])

    def event(self, name: str, action: str, status: str, reason: str) -> None:
        """Record an event about a resource that has no version to write on."""
        self._run(
            sql.EVENT,
            {
                "stack_id": self.stack_id,
                "name": name,
                "action": str(action),
                "status": str(status),
                "reason": reason,
                "traversal": self.traversal,
            },
            rows=False,
        )

    def outputs(self, names: Iterable[str]) -> dict[str, Mapping[str, Any]]:
        """The stored outputs (attr_data) of the head versions of `names`."""
        rows = self._run(sql.OUTPUTS, {"stack_id": self.stack_id, "names": sorted(set(names))})
        return {
            name: open_column(self._sealer, "resource", "attr_data", data) or {}
            for name, data in rows
        }

    def template(self, template_id: int) -> tuple[str, str, str, str, str | None] | None:
        """A stored template, its parameters, environment, files and facade (JSON null, or
        None for rows from before migration 0010, when it is not a nested stack's), as JSON
        text; None if it is gone."""
        rows = self._run(sql.TEMPLATE, {"id": template_id})
        if not rows:
            return None
        row = rows[0]
        names = ("template", "parameters", "environment", "files", "facade")
        texts = [
            self._sealer.open_json_text(text, where=f"raw_template.{name}")
            for name, text in zip(names, row, strict=True)
        ]
        template, parameters, environment, files = (str(text) for text in texts[:4])
        return template, parameters, environment, files, texts[4]
