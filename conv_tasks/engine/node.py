"""One graph node: converge a resource (update phase) or purge its old versions (clean-up phase).

A node loads state, decides (engine.decide, pure), writes under its lease on
the resource version (compare-and-swap), then propagates. It stops as soon
as it sees that its traversal is no longer the stack's, except to finish a
resource action it had started, which it never abandons half-way.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError

from conv_tasks.db import events as event_repo
from conv_tasks.db import resources as resource_repo
from conv_tasks.db.models import Resource
from conv_tasks.db.session import session_scope
from conv_tasks.engine import decide as decisions
from conv_tasks.engine.actions import StepResult, action_context, run_step
from conv_tasks.engine.definition import PreparedResource, StackDefinition, peek_definition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.payload import NodeTask
from conv_tasks.engine.propagate import failures_in, propagate, wait_for_lock, wake_waiter
from conv_tasks.engine.snapshot import StackSnapshot, definition_for, load_snapshot
from conv_tasks.engine.status import COMPLETE, CREATE, DELETE, FAILED, IN_PROGRESS, UPDATE
from conv_tasks.errors import ConvTasksError
from conv_tasks.graph import UPDATE as UPDATE_PHASE
from conv_tasks.graph import NodeKey
from conv_tasks.template import ResourceData

log = logging.getLogger(__name__)


def run_node(env: EngineEnv, task: NodeTask) -> str:
    """Run one delivery of a node task. Returns what happened, for logs and tests."""
    with session_scope() as session:
        snap = load_snapshot(session, task.stack_id)
        rows = list(resource_repo.versions_of(session, task.stack_id, task.node.name))
    if snap is None:
        return "stack-gone"
    superseded = snap.traversal != task.traversal
    if superseded and task.nonce is None:
        return "superseded"
    if not superseded:
        failures = failures_in(task.data)
        if failures:
            propagate(env, task, {"failed": failures})
            return "skipped"
    if task.node.phase == UPDATE_PHASE:
        return _NodeRun(env, task, snap, superseded).update(rows)
    return _NodeRun(env, task, snap, superseded).cleanup(rows)


def _head(rows: Sequence[Resource]) -> Resource | None:
    heads = [r for r in rows if r.replaced_by is None]
    return max(heads, key=lambda r: r.version) if heads else None


def _view(row: Resource) -> decisions.VersionView:
    return decisions.VersionView(
        id=row.id,
        version=row.version,
        type=row.type,
        physical_id=row.physical_id,
        action=row.action,
        status=row.status,
        definition_hash=row.definition_hash,
        replaced_by=row.replaced_by,
        properties=row.properties_data or {},
    )


def _stored_data(row: Resource) -> tuple[str | None, dict[str, Any]]:
    stored = row.attr_data or {}
    return stored.get("ref"), dict(stored.get("attributes") or {})


class _NodeRun:
    """The state of one node delivery; methods are the steps of the node."""

    def __init__(self, env: EngineEnv, task: NodeTask, snap: StackSnapshot, superseded: bool):
        self.env = env
        self.task = task
        self.snap = snap
        self.superseded = superseded
        self.name = task.node.name
        self.nonce = task.nonce or str(uuid.uuid4())

    # ----------------------------------------------------------------- shared

    def _definition(self) -> StackDefinition:
        cached = peek_definition(self.snap.raw_template_id or 0)
        if cached is not None:
            return cached
        with session_scope() as session:
            return definition_for(session, self.snap.raw_template_id or 0)

    def _timed_out(self) -> bool:
        snap = self.snap
        if not snap.timeout_mins or snap.operation_started_at is None:
            return False
        deadline = snap.operation_started_at + timedelta(minutes=snap.timeout_mins)
        return datetime.now(UTC) > deadline

    def _event(self, row: Resource, action: str, status: str, reason: str = "") -> None:
        with session_scope() as session:
            event_repo.add_events(session, [self._record(row, action, status, reason)])

    def _record(
        self, row: Resource, action: str, status: str, reason: str = ""
    ) -> event_repo.EventRecord:
        return event_repo.EventRecord(
            stack_id=row.stack_id,
            action=action,
            status=status,
            reason=reason,
            resource_name=row.name,
            physical_id=row.physical_id,
            traversal=self.task.traversal,
        )

    def _release(
        self, row: Resource, action: str, status: str, reason: str = "", **fields: Any
    ) -> None:
        """End our action on `row`: write its outcome, record the event, let go of the lease."""
        with session_scope() as session:
            resource_repo.release_lock(session, row.id, self.nonce, status=status, **fields)
            event_repo.add_events(session, [self._record(row, action, status, reason)])
        wake_waiter(self.env, row.id)

    def _propagate(self, out: Mapping[str, Any]) -> None:
        if not self.superseded:
            propagate(self.env, self.task, out)

    def _fail_without_row(self, reason: str) -> str:
        with session_scope() as session:
            event_repo.add_events(
                session,
                [
                    event_repo.EventRecord(
                        self.task.stack_id,
                        UPDATE,
                        FAILED,
                        reason,
                        resource_name=self.name,
                        traversal=self.task.traversal,
                    )
                ],
            )
        self._propagate({"failed": [f"{self.name}: {reason}"]})
        return "failed"

    def _continue_later(self, row_id: int, step: StepResult) -> str:
        ttl = self.env.settings.lock_ttl + step.poll_after
        with session_scope() as session:
            resource_repo.update_locked(
                session,
                row_id,
                self.nonce,
                plugin_data=dict(step.data),
                physical_id=step.physical_id,
            )
            resource_repo.acquire_lock(session, row_id, self.task.traversal, self.nonce, ttl)
        self.env.syncpoints.heartbeat(self.task.traversal)
        self.env.dispatcher.node(self.task.to_payload(nonce=self.nonce), countdown=step.poll_after)
        return "polling"

    def _inputs(self, definition: StackDefinition) -> dict[str, ResourceData]:
        inputs: dict[str, ResourceData] = {}
        for key, value in self.task.data.items():
            try:
                node = NodeKey.parse(key)
            except ConvTasksError:
                continue
            if node.phase == UPDATE_PHASE and isinstance(value, Mapping):
                inputs[node.name] = ResourceData(value.get("ref"), dict(value.get("attrs") or {}))
        missing = [n for n in definition.dependencies.get(self.name, ()) if n not in inputs]
        if missing:
            # Data lost with Redis or a restarted traversal: the database has it.
            with session_scope() as session:
                for dep in missing:
                    head = _head(resource_repo.versions_of(session, self.task.stack_id, dep))
                    if head is not None:
                        ref, attrs = _stored_data(head)
                        inputs[dep] = ResourceData(ref, attrs)
        return inputs

    # ---------------------------------------------------------------- update

    def update(self, rows: list[Resource]) -> str:
        head = _head(rows)
        ours = self.task.nonce and head is not None and head.lock_nonce == self.nonce
        if ours and head is not None and head.status == IN_PROGRESS:
            return self._poll(head)
        if self.superseded:
            return "superseded"
        if head is None:
            return self._fail_without_row("the resource has no version to converge")
        definition = self._definition()
        if self._timed_out():
            return self._fail_without_row(
                f"the stack operation timed out after {self.snap.timeout_mins} minute(s)"
            )
        try:
            prepared = definition.prepare(self.name, self._inputs(definition), self.env.registry)
        except ConvTasksError as exc:
            return self._fail_without_row(definition.redact(str(exc)))
        with session_scope() as session:
            key = resource_repo.acquire_lock(
                session, head.id, self.task.traversal, self.nonce, self.env.settings.lock_ttl
            )
            if key is not None:
                rows = list(resource_repo.versions_of(session, self.task.stack_id, self.name))
        if key is None:
            wait_for_lock(self.env, self.task, head.id)
            return "waiting"
        fresh = _head(rows)
        if fresh is None or fresh.id != head.id:
            # Another traversal made a newer version between our read and our lock.
            with session_scope() as session:
                resource_repo.release_lock(session, head.id, self.nonce)
            self.env.dispatcher.node(self.task.to_payload())
            return "retry"
        return self._act(fresh, rows, definition, prepared)

    def _act(
        self,
        head: Resource,
        rows: Sequence[Resource],
        definition: StackDefinition,
        prepared: PreparedResource,
    ) -> str:
        plugin_cls = prepared.resource_type
        plugin = plugin_cls()
        resolved = prepared.resolved
        decision = decisions.decide(
            _view(head),
            [_view(r) for r in rows],
            type_name=resolved.type,
            definition_hash=resolved.definition_hash,
            properties=prepared.properties,
            needs_replacement=plugin.needs_replacement,
        )
        requires = sorted(definition.dependencies.get(self.name, ()))
        wanted = definition.attributes_needed.get(self.name, frozenset())
        common: dict[str, Any] = {
            "template_id": self.snap.raw_template_id,
            "requires": requires,
            "deletion_policy": resolved.deletion_policy,
        }
        verdict = decision.verdict
        if verdict == decisions.NOOP:
            return self._converged(head, head, plugin, wanted, common)
        if verdict == decisions.REINSTATE:
            return self._reinstate(head, rows, decision.version.id, plugin, wanted, common)
        if verdict == decisions.RESUME:
            return self._resume(head, rows, wanted)
        target = {
            **common,
            "type": resolved.type,
            "properties_data": prepared.properties,
            "definition_hash": resolved.definition_hash,
            "status": IN_PROGRESS,
            "status_reason": decision.reason,
        }
        now = datetime.now(UTC)
        if verdict == decisions.CREATE_NEW:
            with session_scope() as session:
                held = resource_repo.update_locked(
                    session,
                    head.id,
                    self.nonce,
                    action=CREATE,
                    action_started_at=now,
                    plugin_data={},
                    **target,
                )
                if held:
                    event_repo.add_events(session, [self._record(head, CREATE, IN_PROGRESS)])
                row = resource_repo.get_version(session, head.id)
            if not held or row is None:
                return "lost-lock"  # our lease expired and another node took over
            ctx = action_context(self.env, row, CREATE, properties=prepared.properties)
            return self._after_step(
                row, CREATE, run_step(self.env, plugin, ctx, first=True, wanted_attributes=wanted)
            )
        action = UPDATE if verdict == decisions.UPDATE else CREATE
        try:
            with session_scope() as session:
                new = resource_repo.add_version(
                    session,
                    stack_id=head.stack_id,
                    name=head.name,
                    version=max(r.version for r in rows) + 1,
                    action=action,
                    action_started_at=now,
                    replaces=head.id,
                    physical_id=head.physical_id if action == UPDATE else None,
                    plugin_data=dict(head.plugin_data or {}) if action == UPDATE else {},
                    lock_holder=self.task.traversal,
                    lock_nonce=self.nonce,
                    lock_expires_at=now + timedelta(seconds=self.env.settings.lock_ttl),
                    **target,
                )
                moved: dict[str, Any] = {"physical_id": None} if action == UPDATE else {}
                resource_repo.release_lock(
                    session, head.id, self.nonce, replaced_by=new.id, **moved
                )
                reason = f"replacing version {head.version}" if action == CREATE else ""
                event_repo.add_events(session, [self._record(new, action, IN_PROGRESS, reason)])
        except IntegrityError:
            # A duplicate delivery made the new version first; let it finish.
            self.env.dispatcher.node(
                self.task.to_payload(), countdown=self.env.settings.poll_interval
            )
            return "retry"
        ctx = action_context(
            self.env,
            new,
            action,
            properties=prepared.properties,
            old_properties=head.properties_data if action == UPDATE else None,
        )
        return self._after_step(
            new, action, run_step(self.env, plugin, ctx, first=True, wanted_attributes=wanted)
        )

    def _converged(
        self,
        head: Resource,
        row: Resource,
        plugin: Any,
        wanted: frozenset[str],
        common: dict[str, Any],
    ) -> str:
        ref, attrs = _stored_data(row)
        if not wanted <= attrs.keys():
            ctx = action_context(self.env, row, UPDATE, properties=row.properties_data or {})
            try:
                fresh = dict(plugin.attributes(ctx))
                attrs.update({k: fresh[k] for k in wanted if k in fresh})
                ref = plugin.reference(ctx)
            except Exception as exc:
                reason = f"reading attributes failed: {exc}"
                with session_scope() as session:
                    resource_repo.release_lock(session, row.id, self.nonce)
                wake_waiter(self.env, row.id)
                return self._fail_without_row(reason)
        with session_scope() as session:
            resource_repo.release_lock(
                session, row.id, self.nonce, attr_data={"ref": ref, "attributes": attrs}, **common
            )
        wake_waiter(self.env, row.id)
        self._propagate({"ref": ref, "attrs": {k: attrs[k] for k in wanted if k in attrs}})
        return "noop"

    def _reinstate(
        self,
        head: Resource,
        rows: Sequence[Resource],
        keep_id: int,
        plugin: Any,
        wanted: frozenset[str],
        common: dict[str, Any],
    ) -> str:
        keep = next(r for r in rows if r.id == keep_id)
        with session_scope() as session:
            if (
                resource_repo.acquire_lock(
                    session, keep.id, self.task.traversal, self.nonce, self.env.settings.lock_ttl
                )
                is None
            ):
                resource_repo.release_lock(session, head.id, self.nonce)
                took = False
            else:
                resource_repo.release_lock(session, head.id, self.nonce, replaced_by=keep.id)
                resource_repo.update_locked(session, keep.id, self.nonce, replaced_by=None)
                event_repo.add_events(
                    session,
                    [self._record(keep, UPDATE, COMPLETE, f"version {keep.version} reinstated")],
                )
                took = True
        wake_waiter(self.env, head.id)
        if not took:
            wait_for_lock(self.env, self.task, keep.id)
            return "waiting"
        with session_scope() as session:
            row = resource_repo.get_version(session, keep.id)
        assert row is not None
        return self._converged(row, row, plugin, wanted, common)

    def _resume(self, head: Resource, rows: Sequence[Resource], wanted: frozenset[str]) -> str:
        """Carry on an action whose worker died: start it again with the same token."""
        plugin = self.env.registry.get(head.type)()
        old = next((r for r in rows if r.id == head.replaces), None)
        ctx = action_context(
            self.env,
            head,
            head.action,
            properties=head.properties_data or {},
            old_properties=(old.properties_data if old is not None else None),
        )
        return self._after_step(
            head, head.action, run_step(self.env, plugin, ctx, first=True, wanted_attributes=wanted)
        )

    def _poll(self, row: Resource) -> str:
        plugin = self.env.registry.get(row.type)()
        wanted: frozenset[str] = frozenset()
        if not self.superseded:
            wanted = self._definition().attributes_needed.get(self.name, frozenset())
        if not self.superseded and self._timed_out():
            step = StepResult(
                True, f"the stack operation timed out after {self.snap.timeout_mins} minute(s)"
            )
            return self._after_step(row, row.action, step)
        ctx = action_context(self.env, row, row.action, properties=row.properties_data or {})
        return self._after_step(
            row, row.action, run_step(self.env, plugin, ctx, first=False, wanted_attributes=wanted)
        )

    def _after_step(self, row: Resource, action: str, step: StepResult) -> str:
        if not step.done:
            return self._continue_later(row.id, step)
        if step.failed is not None:
            reason = step.failed
            if not self.superseded:
                reason = self._definition().redact(reason)
            self._release(
                row,
                action,
                FAILED,
                reason,
                status_reason=reason,
                plugin_data=dict(step.data) if step.data else dict(row.plugin_data or {}),
                physical_id=step.physical_id or row.physical_id,
            )
            self._propagate({"failed": [f"{self.name}: {reason}"]})
            return "failed"
        if action == DELETE:
            # An update node finishing a delete a dead worker began; then converge afresh.
            self._release(row, DELETE, COMPLETE, physical_id=None)
            if not self.superseded:
                self.env.dispatcher.node(self.task.to_payload())
            return "resumed-delete"
        row.physical_id = step.physical_id  # the event names the physical resource
        self._release(
            row,
            action,
            COMPLETE,
            status_reason="",
            physical_id=step.physical_id,
            plugin_data=dict(step.data),
            attr_data={"ref": step.reference, "attributes": dict(step.attributes)},
        )
        self._propagate({"ref": step.reference, "attrs": dict(step.attributes)})
        return "complete"

    # --------------------------------------------------------------- cleanup

    def cleanup(self, rows: list[Resource]) -> str:
        in_template = True
        if not self.superseded:
            in_template = self.name in self._definition().template.resources
        first = True
        while True:
            if not first:
                with session_scope() as session:
                    rows = list(resource_repo.versions_of(session, self.task.stack_id, self.name))
            first = False
            live = _head(rows) if in_template else None
            victims = sorted(
                (r for r in rows if live is None or r.id != live.id),
                key=lambda r: r.version,
                reverse=True,
            )
            if self.superseded:
                victims = [r for r in victims if r.lock_nonce == self.nonce]
            if not victims:
                if self.superseded:
                    return "superseded"
                self._propagate({})
                return "cleaned"
            row = victims[0]
            if row.lock_nonce == self.nonce and row.action == DELETE and row.status == IN_PROGRESS:
                outcome = self._delete_step(row, first=False)
            else:
                if self.superseded:
                    return "superseded"
                with session_scope() as session:
                    key = resource_repo.acquire_lock(
                        session,
                        row.id,
                        self.task.traversal,
                        self.nonce,
                        self.env.settings.lock_ttl,
                    )
                    # Decide on the row as it is now that we hold it, not as first read:
                    # another traversal may have created its physical resource meanwhile.
                    fresh = resource_repo.get_version(session, row.id) if key is not None else None
                if key is None:
                    wait_for_lock(self.env, self.task, row.id)
                    return "waiting"
                if fresh is None:
                    continue
                outcome = self._start_delete(fresh)
            if outcome != "deleted":
                return outcome

    def _start_delete(self, row: Resource) -> str:
        if row.physical_id is None:
            # Never created, or its physical resource moved on to a newer version.
            return self._drop_row(row, None)
        if row.deletion_policy == "Retain" and row.physical_id is not None:
            return self._drop_row(row, "deletion_policy is Retain: the physical resource is kept")
        with session_scope() as session:
            resource_repo.update_locked(
                session,
                row.id,
                self.nonce,
                action=DELETE,
                status=IN_PROGRESS,
                status_reason="",
                action_started_at=datetime.now(UTC),
            )
            event_repo.add_events(session, [self._record(row, DELETE, IN_PROGRESS)])
            fresh = resource_repo.get_version(session, row.id)
        assert fresh is not None
        return self._delete_step(fresh, first=True)

    def _delete_step(self, row: Resource, *, first: bool) -> str:
        plugin = self.env.registry.get(row.type)()
        ctx = action_context(self.env, row, DELETE, properties=row.properties_data or {})
        step = run_step(self.env, plugin, ctx, first=first)
        if not step.done:
            return self._continue_later(row.id, step)
        if step.failed is not None:
            return self._after_step(row, DELETE, step)
        return self._drop_row(row, "")

    def _drop_row(self, row: Resource, reason: str | None) -> str:
        with session_scope() as session:
            resource_repo.delete_locked(session, row.id, self.nonce)
            if reason is not None:
                event_repo.add_events(session, [self._record(row, DELETE, COMPLETE, reason)])
        wake_waiter(self.env, row.id)
        return "deleted"
