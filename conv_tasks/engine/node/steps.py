"""One step of a resource action under way, and what the node records of it.

A step starts or polls the action through the plugin (conv_tasks.engine.node.actions);
`after_step` writes what it did on the version (still under way, failed, or complete) with
its events, and hands the node's output on. An action the node did not start itself for
its own traversal (one it resumed after a worker died, or a poll, which may continue an
older traversal's) converges the resource only if its definition is the traversal's;
otherwise the node is delivered again to decide afresh (issue 18).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from conv_tasks.db import Claim, NodeEvent, ResourceVersion, StackState
from conv_tasks.engine.definition import PreparedResource, StackDefinition
from conv_tasks.engine.node.actions import StepResult, action_context, run_step
from conv_tasks.engine.node.adopt import adopted_fields
from conv_tasks.engine.node.decide import settles
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.node.leftovers import unfinished_create
from conv_tasks.engine.payload import NodeOutput, read_stored_output, stored_output
from conv_tasks.errors import ConvTasksError
from conv_tasks.graph import NodeKey
from conv_tasks.resources import ActionContext
from conv_tasks.statuses import Action, Status
from conv_tasks.template import ResourceData

log = logging.getLogger(__name__)


def stack_deadline(stack: StackState) -> datetime | None:
    """When the stack's operation times out (None: it has no timeout)."""
    if not stack.timeout_mins or stack.started_at is None:
        return None
    return stack.started_at + timedelta(minutes=stack.timeout_mins)


def inputs_of(run: NodeRun, definition: StackDefinition) -> dict[str, ResourceData]:
    """The outputs of the resources this one depends on: from the predecessors' SyncPoint
    data, or, where that was lost (Redis, a wake-up, a restart), from the database."""
    inputs = {
        name: ResourceData(output.ref, dict(output.attrs))
        for name, output in run.task.inputs().items()
    }
    missing = [dep for dep in definition.dependencies.get(run.name, ()) if dep not in inputs]
    if missing:
        for name, stored in run.store.outputs(missing).items():
            inputs[name] = read_stored_output(stored)
    return inputs


def fail_unchanged(run: NodeRun, head: ResourceVersion, reason: str) -> Outcome:
    """Fail before acting: the version is unchanged, the failure is an event."""
    action = Action.CREATE if head.action == Action.INIT else Action.UPDATE
    run.write(head, {}, [NodeEvent(action, Status.FAILED, reason, head.physical_id)])
    run.hand_on(NodeOutput(failed=(f"{run.name}: {reason}",)), settled=run.own_cleanup())
    return Outcome.FAILED


def settled_cleanup(
    run: NodeRun, claim: Claim, kept: ResourceVersion, purged: int | None
) -> tuple[NodeKey, ...]:
    """Our clean-up node is settled when no other version of the resource is left to purge."""
    left = [v for v in claim.versions if v.id != kept.id and v.id != purged]
    return () if left else run.own_cleanup()


def poll_action(run: NodeRun, version: ResourceVersion, claim: Claim) -> Outcome:
    """One more step of the action under way, unless it was interrupted or its deadline
    passed: both hold whichever traversal now owns the stack."""
    action = Action(version.action)
    if version.interrupt_reason:
        return _interrupt(run, version, action, claim)
    deadline = version.action_deadline
    if deadline is None and run.current and claim.stack is not None:
        deadline = stack_deadline(claim.stack)  # a version whose action began before deadlines
    if deadline is not None and run.now() > deadline:
        started = version.action_started_at or deadline
        took = max(0.0, (deadline - started).total_seconds())
        reason = f"the {action} action timed out: it did not finish within {took:.0f} s"
        stop_action(run, version, action)
        return after_step(run, version, action, StepResult(True, reason), claim)
    wanted = (
        run.definition().attributes_needed.get(run.name, frozenset())
        if run.current
        else frozenset()
    )
    return step_action(run, version, claim, wanted, first=False)


def _interrupt(run: NodeRun, version: ResourceVersion, action: Action, claim: Claim) -> Outcome:
    """Tell the plugin to stop, and end the action FAILED as interrupted."""
    stop_action(run, version, action)
    reason = f"{action} interrupted: {version.interrupt_reason}"
    return after_step(run, version, action, StepResult(True, reason), claim)


def stop_action(run: NodeRun, version: ResourceVersion, action: Action) -> None:
    """The plugin's interrupt hook, for an action that ends before it finished (interrupted or
    timed out): a deployment stops waiting for its server."""
    plugin = run.plugin(version)
    ctx = action_context(run, version, action, plugin, properties=version.properties)
    try:
        plugin.interrupt(ctx)
    except Exception:
        log.exception("resource %s: interrupting %s raised", run.name, action)


def step_action(
    run: NodeRun,
    version: ResourceVersion,
    claim: Claim,
    wanted: frozenset[str],
    *,
    first: bool,
    facade: Mapping[str, Any] | None = None,
    prepared: PreparedResource | None = None,
    starting: Callable[[ActionContext], ActionContext] | None = None,
) -> Outcome:
    """One step of the version's action under way. `starting` adds to a first step's context
    what only a first step reads (the update_policy, the references to the resource's
    attributes)."""
    action = Action(version.action)
    old = next((v for v in claim.versions if v.id == version.replaces), None)
    plugin = run.plugin(version)
    ctx = action_context(
        run,
        version,
        action,
        plugin,
        properties=version.properties,
        old_properties=old.properties if old is not None and action == Action.UPDATE else None,
        facade=facade,
    )
    if first and starting is not None:
        ctx = starting(ctx)
    step = run_step(plugin, ctx, first=first, wanted_attributes=wanted)
    return after_step(run, version, action, step, claim, prepared=prepared)


def after_step(
    run: NodeRun,
    version: ResourceVersion,
    action: Action,
    step: StepResult,
    claim: Claim,
    *,
    intent: Mapping[str, Any] | None = None,
    own: bool = False,
    prepared: PreparedResource | None = None,
) -> Outcome:
    """Record what one step of the action did. `intent` carries what a create not yet
    recorded as started must write with its outcome (and its IN_PROGRESS event).

    `own`: this delivery started the action for this traversal's definition, so finishing
    it converges the resource. Otherwise (a resumed action, or a poll, which may continue an
    action an older traversal began) a finished action converges the resource only if its
    definition is this traversal's (`prepared`, resolved here when not given); if not, the
    node converges afresh."""
    started = [NodeEvent(action, Status.IN_PROGRESS)] if intent else []
    recorded = dict(intent or {})
    if not step.done:
        fields = {
            **recorded,
            "status": Status.IN_PROGRESS,
            "plugin_data": step.data,
            "physical_id": step.physical_id,
        }
        written = run.write(version, fields, started, release=False, ttl=run.ttl + step.poll_after)
        return run.poll_later(step.poll_after) if written.ok else Outcome.LOST_LEASE
    if step.failed is not None:
        reason = run.redact(step.failed)
        physical_id = step.physical_id or version.physical_id
        fields = {
            **recorded,
            "status": Status.FAILED,
            "status_reason": reason,
            "interrupt_reason": None,
            "plugin_data": dict(step.data) if step.data else dict(version.plugin_data),
            "physical_id": physical_id,
        }
        events = [*started, NodeEvent(action, Status.FAILED, reason, physical_id)]
        if not run.write(version, fields, events).ok:
            return Outcome.LOST_LEASE
        run.hand_on(NodeOutput(failed=(f"{run.name}: {reason}",)), settled=run.own_cleanup())
        return Outcome.FAILED
    if action == Action.DELETE:
        # An update node finishing a delete a dead worker began; then it converges afresh.
        fields = {"status": Status.COMPLETE, "physical_id": None}
        run.write(version, fields, [NodeEvent(Action.DELETE, Status.COMPLETE)])
        return _afresh(run)
    fields = {
        **recorded,
        "action": action,
        "status": Status.COMPLETE,
        "status_reason": "",
        "interrupt_reason": None,
        "physical_id": step.physical_id,
        "plugin_data": step.data,
        "attr_data": stored_output(step.reference, step.attributes),
    }
    if action == Action.CREATE:
        fields.update(adopted_fields(recorded, version, step.data))
    said = str(fields["status_reason"])
    events = [*started, NodeEvent(action, Status.COMPLETE, said, step.physical_id)]
    finished = replace(version, action=action, status=Status.COMPLETE)
    settled_here = own or not run.current or _as_wanted(run, finished, prepared)
    if run.current and settled_here:
        # Converged to this traversal's template, whichever traversal began the action (the
        # end of the traversal asks the table whether every resource is).
        fields["template_id"] = run.task.template_id
    written = run.write(version, fields, events, purge=_purgeable(run, claim, version.replaces))
    if not written.ok:
        return Outcome.LOST_LEASE
    if not settled_here:
        return _afresh(run)
    purged = version.replaces if written.purged else None
    settled = settled_cleanup(run, claim, version, purged)
    run.hand_on(NodeOutput(step.reference, dict(step.attributes)), settled=settled, acted=True)
    return Outcome.COMPLETE


def _purgeable(run: NodeRun, claim: Claim, replaced: int | None) -> int | None:
    """The replaced version that the write completing its replacement may purge (if it holds
    no physical resource and nobody holds it): not one whose create ended without a physical
    id but may have made its object, which its clean-up deletes by the create's token."""
    old = next((v for v in claim.versions if v.id == replaced), None)
    if old is None or not unfinished_create(old):
        return replaced
    try:
        return None if run.plugin(old).makes_objects else replaced
    except ConvTasksError:
        return None  # its type is gone: the clean-up decides


def _as_wanted(run: NodeRun, finished: ResourceVersion, prepared: PreparedResource | None) -> bool:
    """Whether the action just finished on `finished` converged the resource to this
    traversal's definition (`decide.settles`). A definition that no longer prepares says
    no: the fresh delivery fails the resource with the reason."""
    if prepared is None:
        definition = run.definition()
        try:
            prepared = definition.prepare(run.name, inputs_of(run, definition), run.env.registry)
        except ConvTasksError:
            return False
    resolved = prepared.resolved
    return settles(finished, type_name=resolved.type, definition_hash=resolved.definition_hash)


def _afresh(run: NodeRun) -> Outcome:
    """The node finished an action an older traversal began (its worker died): deliver it
    again, fresh, so that it decides anew against its own traversal's definition."""
    run.flush()
    fresh = run.task.again(nonce=None, poll=0, attempt=0)
    run.env.dispatcher.node(fresh.to_payload())
    return Outcome.TAKEN_OVER
