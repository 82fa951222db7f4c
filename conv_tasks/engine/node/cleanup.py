"""The clean-up half of a resource's traversal: purge the versions that are out of date.

claim (one statement: every version to purge, leased) → delete the physical
resources through the plugin → drop the rows with their events (one
statement) → hand on (one Redis call). A version with no physical resource,
or one kept by its deletion policy, is dropped without acting; but one whose
create began and ended without a physical id (interrupted, failed, its worker
killed) may have made its object: its delete gets the create's token to find
it by (leftovers.py), its abandoned create stopped first. A delete that
takes time is recorded as started and polled, like any action.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from conv_tasks.db import Claim, NodeEvent, ResourceVersion
from conv_tasks.engine.node.actions import StepResult, action_context, run_step
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.node.leftovers import unfinished_create
from conv_tasks.engine.node.steps import stop_action
from conv_tasks.engine.payload import NodeOutput
from conv_tasks.errors import ConvTasksError, NotFound
from conv_tasks.statuses import Action, Status

log = logging.getLogger(__name__)

RETAINED = "deletion_policy is Retain: the physical resource is kept"


def clean_up(run: NodeRun) -> Outcome:
    try:
        in_template = run.name in run.definition().template.resources
    except NotFound:
        # Only a superseded traversal's template can be gone; its node only finishes the
        # deletes it holds, whatever the template said.
        in_template = False
    claim = run.claim(cleanup=True, in_template=in_template)
    if claim.stack is None:
        return Outcome.STACK_GONE
    held = sorted((v for v in claim.versions if v.held), key=lambda v: v.version, reverse=True)
    if not run.current and not held:
        return Outcome.SUPERSEDED
    drops: list[ResourceVersion] = []
    events: dict[int, list[NodeEvent]] = {}
    for version in held:
        ours = run.task.poll and version.lock_nonce == run.nonce
        if ours and version.action == Action.DELETE and version.status == Status.IN_PROGRESS:
            overdue = _overdue(version, run.now())
            if overdue is not None:
                stop_action(run, version, Action.DELETE)  # its plugin stops what it runs
            step = overdue or _delete_step(run, version, first=False)
        elif not run.current:
            run.write(version, {})  # a superseded traversal only finishes deletes it began
            continue
        elif version.physical_id is None and not _left_something(run, version):
            drops.append(version)
            continue
        elif version.deletion_policy == "Retain":
            drops.append(version)
            events[version.id] = [NodeEvent(Action.DELETE, Status.COMPLETE, RETAINED)]
            continue
        else:
            if version.physical_id is None and _abandoned_create(version):
                # Its worker died, or its traversal stopped before it ended: stop it before
                # deleting what it made.
                stop_action(run, version, Action.CREATE)
            step = _delete_step(run, version, first=True)
        begun = (
            [] if version.status == Status.IN_PROGRESS else [_event(version, Status.IN_PROGRESS)]
        )
        if step.done and step.failed is None:
            drops.append(version)
            events[version.id] = [*begun, _event(version, Status.COMPLETE)]
            continue
        _drop(run, drops, events)
        return _unfinished(run, version, step, begun)
    _drop(run, drops, events)
    if run.current and any(not v.held for v in _victims(claim, in_template)):
        return run.recheck_later() if claim.queued else run.retry_soon()
    if not run.current:
        run.flush()
        return Outcome.SUPERSEDED
    run.hand_on(NodeOutput())
    return Outcome.CLEANED


def _left_something(run: NodeRun, version: ResourceVersion) -> bool:
    """Whether a version without a physical id may have left an object that only a delete by
    its create's token can find (its type asked only for a create that began and did not
    complete)."""
    if not unfinished_create(version):
        return False
    try:
        return run.plugin(version).makes_objects
    except ConvTasksError as exc:
        # Its type is gone (a provider template nobody has any more): nothing can be asked
        # to delete by token, and the row goes, as it always did.
        log.warning("resource %s: version %s left without a delete: %s", run.name, version.id, exc)
        return False


def _abandoned_create(version: ResourceVersion) -> bool:
    return version.action == Action.CREATE and version.status == Status.IN_PROGRESS


def _victims(claim: Claim, in_template: bool) -> list[ResourceVersion]:
    """The versions this clean-up must purge: all but the head, or all if the resource left
    the template."""
    if not in_template:
        return list(claim.versions)
    heads = [v for v in claim.versions if v.replaced_by is None]
    head = max(heads, key=lambda v: v.version) if heads else None
    return [v for v in claim.versions if head is None or v.id != head.id]


def _event(version: ResourceVersion, status: Status, reason: str = "") -> NodeEvent:
    return NodeEvent(Action.DELETE, status, reason, version.physical_id)


def _overdue(version: ResourceVersion, now: datetime) -> StepResult | None:
    """A failed step if the delete under way has passed its deadline (`now`: the database's
    time)."""
    deadline = version.action_deadline
    if deadline is None or now <= deadline:
        return None
    started = version.action_started_at or deadline
    took = max(0.0, (deadline - started).total_seconds())
    return StepResult(True, f"the DELETE action timed out: it did not finish within {took:.0f} s")


def _delete_step(run: NodeRun, version: ResourceVersion, *, first: bool) -> StepResult:
    plugin = run.plugin(version)
    ctx = action_context(run, version, Action.DELETE, plugin, properties=version.properties)
    return run_step(plugin, ctx, first=first)


def _drop(run: NodeRun, drops: list[ResourceVersion], events: dict[int, list[NodeEvent]]) -> None:
    if drops:
        _, woken = run.store.drop(drops, events)
        run.wake(woken)
        drops.clear()


def _unfinished(
    run: NodeRun, version: ResourceVersion, step: StepResult, begun: list[NodeEvent]
) -> Outcome:
    """A delete that failed, or that needs polling: record it on the version."""
    if not step.done:
        fields: dict[str, Any] = {
            "action": Action.DELETE,
            "status": Status.IN_PROGRESS,
            "status_reason": "",
            "plugin_data": step.data,
        }
        if version.physical_id is None and step.physical_id is not None:
            fields["physical_id"] = step.physical_id  # found by its create's token
        if begun:
            now = run.now()
            plugin = run.plugin(version)
            timeout = plugin.action_timeout(version.properties)
            fields["action_started_at"] = now
            fields["action_deadline"] = now + timedelta(seconds=timeout)
        written = run.write(version, fields, begun, release=False, ttl=run.ttl + step.poll_after)
        if not written.ok:
            return Outcome.LOST_LEASE
        run.flush()
        return run.poll_later(step.poll_after)
    reason = run.redact(step.failed or "delete failed")
    fields = {
        "action": Action.DELETE,
        "status": Status.FAILED,
        "status_reason": reason,
        "plugin_data": dict(step.data) if step.data else dict(version.plugin_data),
    }
    if version.physical_id is None and step.physical_id is not None:
        fields["physical_id"] = step.physical_id
    if not run.write(version, fields, [*begun, _event(version, Status.FAILED, reason)]).ok:
        return Outcome.LOST_LEASE
    if run.current:
        run.hand_on(NodeOutput(failed=(f"{run.name}: {reason}",)))
    run.flush()
    return Outcome.FAILED
