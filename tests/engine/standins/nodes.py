"""The stand-in for conv_tasks.db.NodeStore: a node delivery's operations on its resource.

Each operation is one autocommit statement, as in conv_tasks.db.node_statements, and does
what that SQL does: the same rule for a free lease (`_FREE`: nobody holds it, it expired,
or it is our own nonce's), the same `is_current` (the traversal, the template and an
operation in progress), the waiter recorded on the newest blocked target and handed back
by whoever releases, every write refused unless our nonce still holds the version, and
the reinstate guard (still COMPLETE, holding a physical id, of the definition read, and
no nonce on it). Expiry is measured by the test's clock.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from conv_tasks.db import Claim, NodeEvent, ResourceVersion, StackState, Written, version_of
from conv_tasks.db.node_statements import JSON_COLUMNS, WRITABLE
from conv_tasks.db.validation import require_fields, require_id, require_positive, require_uuid

from .schema import Row
from .tables import Violation, Work

# The columns START_VERSION takes from the node's fields (a missing one is a missing bind).
_NEW_VERSION = (
    "type",
    "physical_id",
    "status_reason",
    "template_id",
    "properties_data",
    "plugin_data",
    "definition_hash",
    "requires",
    "deletion_policy",
    "action_started_at",
)
_RELEASE = {"lock_holder": None, "lock_nonce": None, "lock_expires_at": None, "waiter": None}


def _expired(row: Row, now: datetime) -> bool:
    return row["lock_expires_at"] is not None and row["lock_expires_at"] < now


def _free(row: Row, now: datetime, nonces: tuple[str | None, ...]) -> bool:
    return row["lock_holder"] is None or _expired(row, now) or row["lock_nonce"] in nonces


def _column(name: str, value: Any) -> Any:
    """A field as its statement binds it: action and status as text, JSON as JSON."""
    if name in JSON_COLUMNS:
        return list(value) if name == "requires" else dict(value)
    return str(value) if name in ("action", "status") else value


class StandinNodeStore:
    def __init__(
        self,
        work: Callable[[], AbstractContextManager[Work]],
        *,
        stack_id: str,
        traversal: str,
        template_id: int,
        nonce: str,
        continues: str | None = None,
    ) -> None:
        self._work = work
        self.stack_id = require_uuid(stack_id, "stack_id")
        self.traversal = require_uuid(traversal, "traversal")
        self.template_id = require_id(template_id, "template_id")
        self.nonce = require_uuid(nonce, "nonce")
        self.continues = None if continues is None else require_uuid(continues, "continues")

    @contextmanager
    def _statement(self, name: str) -> Iterator[Work]:
        with self._work() as work:
            work.statement(f"nodes.{name}")
            yield work

    def _lease(self, work: Work, ttl: float) -> dict[str, Any]:
        expires = work.now + timedelta(seconds=ttl)
        return {"lock_holder": self.traversal, "lock_nonce": self.nonce, "lock_expires_at": expires}

    def _held(self, work: Work, resource_id: int) -> Row | None:
        """The version, if our nonce is on it (the statements' `prior`)."""
        row = work.get("resource", resource_id)
        return row if row is not None and row["lock_nonce"] == self.nonce else None

    def _event(self, work: Work, name: str, event: NodeEvent) -> None:
        work.insert(
            "event",
            {
                "stack_id": self.stack_id,
                "resource_name": name,
                "physical_id": event.physical_id,
                "action": str(event.action),
                "status": str(event.status),
                "reason": event.reason,
                "traversal": self.traversal,
            },
        )

    def claim(
        self, name: str, *, cleanup: bool, in_template: bool, ttl: float, waiter: str
    ) -> Claim:
        require_positive(ttl, "ttl")
        with self._statement("claim") as work:
            stack = work.get("stack", self.stack_id)
            if stack is None or stack["deleted_at"] is not None:
                return Claim(None, (), False)
            current = (
                stack["current_traversal"] == self.traversal
                and stack["raw_template_id"] == self.template_id
                and stack["status"] == "IN_PROGRESS"
            )
            now = work.now
            known = [
                r
                for r in work.rows("resource")
                if r["stack_id"] == self.stack_id and r["name"] == name
            ]
            ours = tuple(n for n in (self.nonce, self.continues) if n is not None)
            free = {r["id"]: _free(r, now, ours) for r in known}
            heads = [r for r in known if r["replaced_by"] is None]
            head = max(heads, key=lambda r: r["version"])["id"] if heads else None

            def targeted(row: Row) -> bool:
                if cleanup:
                    return not in_template or row["id"] != head
                return row["id"] == head

            targets = [r for r in known if targeted(r)]
            claimed: dict[int, Row] = {}
            for row in targets:
                mine = current or row["lock_nonce"] in ours
                if free[row["id"]] and mine and (cleanup or row["replaced_by"] is None):
                    claimed[row["id"]] = work.update(
                        "resource",
                        row["id"],
                        **self._lease(work, ttl),
                        atomic_key=row["atomic_key"] + 1,
                        waiter=None if row["waiter"] == waiter else row["waiter"],
                    )
            blocked = [r for r in targets if not free[r["id"]]]
            if current and blocked:
                newest = max(blocked, key=lambda r: r["version"])
                work.update("resource", newest["id"], waiter=waiter)
            versions = sorted(known, key=lambda r: r["version"])
            return Claim(
                StackState(
                    current=current,
                    action=stack["action"],
                    template_id=stack["raw_template_id"],
                    timeout_mins=stack["timeout_mins"],
                    started_at=stack["operation_started_at"],
                    tenant=stack["tenant"],
                ),
                tuple(
                    replace(version_of(claimed.get(r["id"], r)), held=r["id"] in claimed)
                    for r in versions
                ),
                bool(current and blocked),
                now,
            )

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
        require_fields(dict(fields), WRITABLE, "a resource version")
        values = {name: _column(name, fields[name]) for name in _NEW_VERSION}
        action = _column("action", fields["action"])
        try:
            with self._statement("start_version") as work:
                prior = self._held(work, head.id)
                if prior is None:
                    return None, ()
                new = work.insert(
                    "resource",
                    {
                        **values,
                        "stack_id": self.stack_id,
                        "name": head.name,
                        "version": version,
                        "action": action,
                        "status": "IN_PROGRESS",
                        "attr_data": {},
                        "replaces": head.id,
                        "action_deadline": fields.get("action_deadline"),
                        "atomic_key": 0,
                        **self._lease(work, ttl),
                    },
                )
                work.update(
                    "resource",
                    head.id,
                    **_RELEASE,
                    replaced_by=new["id"],
                    physical_id=None if in_place else prior["physical_id"],
                    atomic_key=prior["atomic_key"] + 1,
                    updated_at=work.now,
                )
                begun = NodeEvent(action, "IN_PROGRESS", reason, new["physical_id"])
                self._event(work, head.name, begun)
        except Violation:
            return None, ()  # another node made that version first
        return replace(version_of(new), held=True), tuple(w for w in (prior["waiter"],) if w)

    def reinstate(
        self, head: ResourceVersion, keep: ResourceVersion, *, reason: str, ttl: float
    ) -> tuple[ResourceVersion | None, tuple[str, ...]]:
        with self._statement("reinstate") as work:
            prior = self._held(work, head.id)
            kept = work.get("resource", keep.id)
            if (
                prior is None
                or kept is None
                or kept["lock_nonce"] is not None
                or kept["status"] != "COMPLETE"
                or kept["physical_id"] is None
                or keep.definition_hash is None
                or kept["definition_hash"] != keep.definition_hash
            ):
                return None, ()
            kept = work.update(
                "resource",
                keep.id,
                **self._lease(work, ttl),
                replaced_by=None,
                atomic_key=kept["atomic_key"] + 1,
                updated_at=work.now,
            )
            work.update(
                "resource",
                head.id,
                **_RELEASE,
                replaced_by=keep.id,
                atomic_key=prior["atomic_key"] + 1,
                updated_at=work.now,
            )
            kept_event = NodeEvent("UPDATE", "COMPLETE", reason, kept["physical_id"])
            self._event(work, head.name, kept_event)
        return replace(version_of(kept), held=True), tuple(w for w in (prior["waiter"],) if w)

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
        require_fields(dict(fields), WRITABLE, "a resource version")
        with self._statement("write") as work:
            prior = self._held(work, version.id)
            if prior is None:
                return Written(ok=False)
            now = work.now
            doomed = None if purge is None else work.get("resource", purge)
            lease = _RELEASE if release else {"lock_expires_at": now + timedelta(seconds=ttl)}
            work.update(
                "resource",
                version.id,
                **{name: _column(name, value) for name, value in fields.items()},
                **lease,
                atomic_key=prior["atomic_key"] + 1,
                updated_at=now,
            )
            woken = [prior["waiter"]] if release else []
            purged = (
                doomed is not None
                and doomed["physical_id"] is None
                and (doomed["lock_holder"] is None or _expired(doomed, now))
            )
            if doomed is not None and purged:
                work.delete("resource", doomed["id"])
                woken.append(doomed["waiter"])
            for event in events:
                self._event(work, version.name, event)
            return Written(ok=True, purged=purged, woken=tuple(w for w in woken if w))

    def drop(
        self, versions: Iterable[ResourceVersion], events: Mapping[int, Sequence[NodeEvent]]
    ) -> tuple[frozenset[int], tuple[str, ...]]:
        listed = list(versions)
        if not listed:
            return frozenset(), ()
        with self._statement("drop") as work:
            gone: dict[int, str | None] = {}
            for version in listed:
                row = self._held(work, version.id)
                if row is not None:
                    work.delete("resource", version.id)
                    gone[version.id] = row["waiter"]
            for version in listed:
                for event in events.get(version.id, ()) if version.id in gone else ():
                    self._event(work, listed[0].name, event)
        return frozenset(gone), tuple(w for w in gone.values() if w)

    def waiting(self, name: str, waiter: str) -> bool:
        with self._statement("waiting") as work:
            return any(
                (r["stack_id"], r["name"], r["waiter"]) == (self.stack_id, name, waiter)
                for r in work.rows("resource")
            )

    def event(self, name: str, action: str, status: str, reason: str) -> None:
        with self._statement("event") as work:
            self._event(work, name, NodeEvent(action, status, reason))

    def outputs(self, names: Iterable[str]) -> dict[str, Mapping[str, Any]]:
        wanted = set(names)
        with self._statement("outputs") as work:
            heads: dict[str, Row] = {}
            for row in work.rows("resource"):
                if row["stack_id"] != self.stack_id or row["name"] not in wanted:
                    continue
                best = heads.get(row["name"])
                if row["replaced_by"] is None and (
                    best is None or row["version"] > best["version"]
                ):
                    heads[row["name"]] = row
        return {name: row["attr_data"] or {} for name, row in sorted(heads.items())}

    def template(self, template_id: int) -> tuple[str, str, str, str, str | None] | None:
        with self._statement("template") as work:
            row = work.get("raw_template", template_id)
        if row is None:
            return None
        texts = [json.dumps(row[c]) for c in ("template", "parameters", "environment", "files")]
        return (texts[0], texts[1], texts[2], texts[3], json.dumps(row["facade"]))
