"""The update half of a resource's traversal: converge its head version to the template.

claim (one statement) → decide (pure) → act through the plugin → write the
outcome (one statement) → hand the output on (one Redis call). A create that
finishes in its first step costs no other statement: its IN_PROGRESS event is
written with the outcome. An update or replacement first writes the new
version (one more statement), so that a step started again after a crash
acts on the same version with the same idempotency token.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError

from conv_tasks.db.nodes import Claim, NodeEvent, ResourceVersion, StackState
from conv_tasks.engine.node.actions import StepResult, action_context, pick_attributes, run_step
from conv_tasks.engine.node.decide import Verdict, decide, settles
from conv_tasks.engine.definition.model import PreparedResource, StackDefinition
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.payload import NodeOutput
from conv_tasks.statuses import Action, Status
from conv_tasks.engine.node.unhealthy import repaired_in_place
from conv_tasks.errors import ConvTasksError
from conv_tasks.graph import NodeKey
from conv_tasks.resources import ActionContext, ResourceType
from conv_tasks.template import ResourceData, facade_of
from conv_tasks.template.member_view import MEMBER_VIEW

log = logging.getLogger(__name__)


def converge(run: NodeRun) -> Outcome:
    claim = run.claim(cleanup=False, in_template=True)
    if claim.stack is None:
        return Outcome.STACK_GONE
    head = _head(claim.versions)
    if head is None or not head.held:
        if not run.current:
            return Outcome.SUPERSEDED
        if head is None:
            return run.fail_unclaimed("the resource has no version to converge")
        return run.recheck_later() if claim.queued else run.retry_soon()
    if head.status == Status.IN_PROGRESS and run.task.poll and head.lock_nonce == run.nonce:
        return _poll(run, head, claim)
    if not run.current:
        run.write(head, {})  # held by our nonce only: a retried delivery of a superseded node
        return Outcome.SUPERSEDED
    definition = run.definition()
    deadline = _deadline(claim.stack)
    if deadline is not None and datetime.now(UTC) > deadline:
        minutes = claim.stack.timeout_mins
        return _fail(run, head, f"the stack operation timed out after {minutes} minute(s)")
    try:
        prepared = definition.prepare(run.name, _inputs(run, definition), run.env.registry)
    except ConvTasksError as exc:
        return _fail(run, head, definition.reason(run.name, str(exc)))
    plugin = prepared.resource_type()
    decision = decide(
        head,
        claim.versions,
        type_name=prepared.resolved.type,
        definition_hash=prepared.resolved.definition_hash,
        properties=prepared.properties,
        needs_replacement=plugin.needs_replacement,
        substitutes=run.env.registry.substitutes,
        repaired_in_place=lambda v: repaired_in_place(run.env, prepared.resource_type, v),
    )
    wanted = definition.attributes_needed.get(run.name, frozenset())
    target = _target(run, definition, prepared)
    verdict = decision.verdict
    if verdict == Verdict.NOOP:
        return _converged(run, head, claim, plugin, wanted, target)
    if verdict == Verdict.REINSTATE:
        return _reinstate(run, head, decision.version, claim, plugin, wanted, target)
    if verdict == Verdict.RESUME:
        return _resume(run, head, claim, wanted, prepared)
    if verdict == Verdict.CREATE:
        ctx = action_context(
            run.env,
            run.task.stack_id,
            head,
            Action.CREATE,
            properties=prepared.properties,
            facade=_facade(definition, prepared),
        )
        started = datetime.fromtimestamp(ctx.started_at, UTC)
        deadline = _action_deadline(claim.stack, plugin, prepared.properties, started)
        # The version's deadline is written with the step's outcome: the step sees it now.
        ctx = _starting(replace(ctx, deadline=deadline.timestamp()), definition, prepared)
        step = run_step(plugin, ctx, first=True, wanted_attributes=wanted)
        intent = {
            **target,
            "action": Action.CREATE,
            "action_started_at": started,
            "action_deadline": deadline,
            "interrupt_reason": None,
        }
        return _after_step(run, head, Action.CREATE, step, claim, intent=intent, own=True)
    return _new_version(run, head, claim, decision.reason, verdict, prepared, target, wanted)


def _starting(
    ctx: ActionContext, definition: StackDefinition, prepared: PreparedResource
) -> ActionContext:
    """The first step's context: the resource's update_policy and the references to its
    attributes, which only a plugin that plans its action (a group) reads."""
    references = definition.attribute_references.get(ctx.resource_name, ())
    policy = prepared.resolved.update_policy
    if not references and not policy:
        return ctx
    return replace(ctx, update_policy=policy, attribute_references=references)


def _facade(definition: StackDefinition, prepared: PreparedResource) -> dict[str, Any]:
    """The resource's definition for a child stack's resource_facade, marked hidden when
    the resource derives from hidden parameters (the child then hides what reads it)."""
    name = prepared.resolved.name
    return facade_of(prepared.resolved, hidden=name in definition.hidden_resources)


def _head(versions: Sequence[ResourceVersion]) -> ResourceVersion | None:
    heads = [v for v in versions if v.replaced_by is None]
    return max(heads, key=lambda v: v.version) if heads else None


def _deadline(stack: StackState) -> datetime | None:
    if not stack.timeout_mins or stack.started_at is None:
        return None
    return stack.started_at + timedelta(minutes=stack.timeout_mins)


def _action_deadline(
    stack: StackState | None, plugin: ResourceType, properties: Mapping[str, Any], now: datetime
) -> datetime:
    """When an action starting `now` must have finished: when the stack operation times out,
    or, if it has no timeout, after the resource type's default action timeout."""
    deadline = _deadline(stack) if stack is not None else None
    if deadline is not None:
        return deadline
    return now + timedelta(seconds=plugin.action_timeout(properties))


def _target(
    run: NodeRun, definition: StackDefinition, prepared: PreparedResource
) -> dict[str, Any]:
    """What a version converged to this template records about its definition."""
    resolved = prepared.resolved
    return {
        "type": resolved.type,
        "properties_data": prepared.properties,
        "definition_hash": resolved.definition_hash,
        "template_id": run.task.template_id,
        "requires": sorted(definition.dependencies.get(run.name, ())),
        "deletion_policy": resolved.deletion_policy,
    }


def _inputs(run: NodeRun, definition: StackDefinition) -> dict[str, ResourceData]:
    """The outputs of the resources this one depends on: from the predecessors' SyncPoint
    data, or, where that was lost (Redis, a wake-up, a restart), from the database."""
    inputs = {
        name: ResourceData(output.ref, dict(output.attrs))
        for name, output in run.task.inputs().items()
    }
    missing = [dep for dep in definition.dependencies.get(run.name, ()) if dep not in inputs]
    if missing:
        for name, stored in run.store.outputs(missing).items():
            inputs[name] = ResourceData(stored.get("ref"), dict(stored.get("attributes") or {}))
    return inputs


def _fail(run: NodeRun, head: ResourceVersion, reason: str) -> Outcome:
    """Fail before acting: the version is unchanged, the failure is an event."""
    action = Action.CREATE if head.action == Action.INIT else Action.UPDATE
    run.write(head, {}, [NodeEvent(action, Status.FAILED, reason, head.physical_id)])
    run.hand_on(NodeOutput(failed=(f"{run.name}: {reason}",)), settled=run.own_cleanup())
    return Outcome.FAILED


def _settled(
    run: NodeRun, claim: Claim, kept: ResourceVersion, purged: int | None
) -> tuple[NodeKey, ...]:
    """Our clean-up node is settled when no other version of the resource is left to purge."""
    left = [v for v in claim.versions if v.id != kept.id and v.id != purged]
    return () if left else run.own_cleanup()


def _new_version(
    run: NodeRun,
    head: ResourceVersion,
    claim: Claim,
    reason: str,
    verdict: Verdict,
    prepared: PreparedResource,
    target: Mapping[str, Any],
    wanted: frozenset[str],
) -> Outcome:
    in_place = verdict == Verdict.UPDATE
    action = Action.UPDATE if in_place else Action.CREATE
    plugin = prepared.resource_type()
    now = datetime.now(UTC)
    fields = {
        **target,
        "action": action,
        "physical_id": head.physical_id if in_place else None,
        "plugin_data": dict(head.plugin_data) if in_place else {},
        "status_reason": reason,
        "action_started_at": now,
        "action_deadline": _action_deadline(claim.stack, plugin, prepared.properties, now),
    }
    try:
        new, woken = run.store.start_version(
            head,
            version=max(v.version for v in claim.versions) + 1,
            in_place=in_place,
            fields=fields,
            reason="" if in_place else f"replacing version {head.version}",
            ttl=run.ttl,
        )
    except IntegrityError:
        # Another node made that version first (our lease had run out): it carries on.
        return Outcome.LOST_LEASE
    run.wake(woken)
    if new is None:
        return Outcome.LOST_LEASE
    ctx = action_context(
        run.env,
        run.task.stack_id,
        new,
        action,
        properties=prepared.properties,
        old_properties=head.properties if in_place else None,
        facade=_facade(run.definition(), prepared),
    )
    ctx = _starting(ctx, run.definition(), prepared)
    step = run_step(plugin, ctx, first=True, wanted_attributes=wanted)
    return _after_step(run, new, action, step, claim, own=True)


def _resume(
    run: NodeRun,
    head: ResourceVersion,
    claim: Claim,
    wanted: frozenset[str],
    prepared: PreparedResource,
) -> Outcome:
    """Carry on an action whose worker died: start its step again with the same token (and
    the facade of the definition the node converges to: a child stack started again reads
    the same). Once it finishes, the node converges afresh if that action's definition is
    not the one this traversal wants."""
    facade = _facade(run.definition(), prepared)
    return _step(run, head, claim, wanted, first=True, facade=facade, prepared=prepared)


def _poll(run: NodeRun, version: ResourceVersion, claim: Claim) -> Outcome:
    """One more step of the action under way, unless it was interrupted or its deadline
    passed: both hold whichever traversal now owns the stack."""
    action = Action(version.action)
    if version.interrupt_reason:
        return _interrupt(run, version, action, claim)
    deadline = version.action_deadline
    if deadline is None and run.current and claim.stack is not None:
        deadline = _deadline(claim.stack)  # a version whose action began before deadlines
    if deadline is not None and datetime.now(UTC) > deadline:
        started = version.action_started_at or deadline
        took = max(0.0, (deadline - started).total_seconds())
        reason = f"the {action} action timed out: it did not finish within {took:.0f} s"
        _stop(run, version, action)
        return _after_step(run, version, action, StepResult(True, reason), claim)
    wanted = (
        run.definition().attributes_needed.get(run.name, frozenset())
        if run.current
        else frozenset()
    )
    return _step(run, version, claim, wanted, first=False)


def _interrupt(run: NodeRun, version: ResourceVersion, action: Action, claim: Claim) -> Outcome:
    """Tell the plugin to stop, and end the action FAILED as interrupted."""
    _stop(run, version, action)
    reason = f"{action} interrupted: {version.interrupt_reason}"
    return _after_step(run, version, action, StepResult(True, reason), claim)


def _stop(run: NodeRun, version: ResourceVersion, action: Action) -> None:
    """The plugin's interrupt hook, for an action that ends before it finished (interrupted or
    timed out): a deployment stops waiting for its server."""
    plugin = run.plugin(version)
    ctx = action_context(run.env, run.task.stack_id, version, action, properties=version.properties)
    try:
        plugin.interrupt(ctx)
    except Exception:
        log.exception("resource %s: interrupting %s raised", run.name, action)


def _step(
    run: NodeRun,
    version: ResourceVersion,
    claim: Claim,
    wanted: frozenset[str],
    *,
    first: bool,
    facade: Mapping[str, Any] | None = None,
    prepared: PreparedResource | None = None,
) -> Outcome:
    action = Action(version.action)
    old = next((v for v in claim.versions if v.id == version.replaces), None)
    ctx = action_context(
        run.env,
        run.task.stack_id,
        version,
        action,
        properties=version.properties,
        old_properties=old.properties if old is not None and action == Action.UPDATE else None,
        facade=facade,
    )
    plugin = run.plugin(version)
    step = run_step(plugin, ctx, first=first, wanted_attributes=wanted)
    return _after_step(run, version, action, step, claim, prepared=prepared)


def _after_step(
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
        "attr_data": {"ref": step.reference, "attributes": dict(step.attributes)},
    }
    events = [*started, NodeEvent(action, Status.COMPLETE, "", step.physical_id)]
    finished = replace(version, action=action, status=Status.COMPLETE)
    settled_here = own or not run.current or _as_wanted(run, finished, prepared)
    written = run.write(version, fields, events, purge=version.replaces)
    if not written.ok:
        return Outcome.LOST_LEASE
    if not settled_here:
        return _afresh(run)
    purged = version.replaces if written.purged else None
    settled = _settled(run, claim, version, purged)
    run.hand_on(NodeOutput(step.reference, dict(step.attributes)), settled=settled)
    return Outcome.COMPLETE


def _as_wanted(run: NodeRun, finished: ResourceVersion, prepared: PreparedResource | None) -> bool:
    """Whether the action just finished on `finished` converged the resource to this
    traversal's definition (`decide.settles`). A definition that no longer prepares says
    no: the fresh delivery fails the resource with the reason."""
    if prepared is None:
        definition = run.definition()
        try:
            prepared = definition.prepare(run.name, _inputs(run, definition), run.env.registry)
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


def _converged(
    run: NodeRun,
    version: ResourceVersion,
    claim: Claim,
    plugin: ResourceType,
    wanted: frozenset[str],
    target: Mapping[str, Any],
) -> Outcome:
    """Nothing to change: refresh what the template records, hand the stored output on."""
    stored = version.attributes
    ref = stored.get("ref")
    attrs = dict(stored.get("attributes") or {})
    if not wanted <= attrs.keys() and MEMBER_VIEW not in attrs:
        ctx = action_context(
            run.env, run.task.stack_id, version, Action.UPDATE, properties=version.properties
        )
        try:
            fresh = dict(plugin.attributes(ctx))
            attrs.update(pick_attributes(plugin, fresh, wanted))
            ref = plugin.reference(ctx)
        except Exception as exc:
            return _fail(run, version, run.redact(f"reading attributes failed: {exc}"))
    recorded = {
        "template_id": target["template_id"],
        "requires": target["requires"],
        "deletion_policy": target["deletion_policy"],
        "attr_data": {"ref": ref, "attributes": attrs},
    }
    if not run.write(version, recorded).ok:
        return Outcome.LOST_LEASE
    picked = pick_attributes(plugin, attrs, wanted)
    run.hand_on(NodeOutput(ref, picked), settled=_settled(run, claim, version, None))
    return Outcome.NOOP


def _reinstate(
    run: NodeRun,
    head: ResourceVersion,
    keep: ResourceVersion,
    claim: Claim,
    plugin: ResourceType,
    wanted: frozenset[str],
    target: Mapping[str, Any],
) -> Outcome:
    """An older version already matches: make it the head again instead of acting."""
    kept, woken = run.store.reinstate(
        head, keep, reason=f"version {keep.version} reinstated", ttl=run.ttl
    )
    run.wake(woken)
    if kept is None:
        run.write(head, {})  # another node holds the version we want: let go, try again soon
        return run.retry_soon()
    return _converged(run, kept, claim, plugin, wanted, target)
