"""The update half of a resource's traversal: converge its head version to the template.

claim (one statement) → decide (pure) → act through the plugin → write the
outcome (one statement) → hand the output on (one Redis call). A create that
finishes in its first step costs no other statement: its IN_PROGRESS event is
written with the outcome. An update or replacement first writes the new
version (one more statement), so that a step started again after a crash
acts on the same version with the same idempotency token.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from conv_tasks.db import Claim, NodeEvent, ResourceVersion, StackState, replacement_reason
from conv_tasks.engine.definition import PreparedResource, StackDefinition
from conv_tasks.engine.node.actions import action_context, pick_attributes, run_step
from conv_tasks.engine.node.adopt import ADOPT, adopting, adoption_refusal, replacement_refusal
from conv_tasks.engine.node.decide import Verdict, decide, head_of
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.node.steps import (
    after_step,
    fail_unchanged,
    inputs_of,
    poll_action,
    settled_cleanup,
    stack_deadline,
    step_action,
)
from conv_tasks.engine.node.unhealthy import repaired_in_place
from conv_tasks.engine.payload import NodeOutput, read_stored_output, stored_output
from conv_tasks.errors import ConvTasksError
from conv_tasks.resources import ActionContext, ResourceType
from conv_tasks.statuses import Action, Status
from conv_tasks.template import MEMBER_VIEW, facade_of


def converge(run: NodeRun) -> Outcome:
    claim = run.claim(cleanup=False, in_template=True)
    if claim.stack is None:
        return Outcome.STACK_GONE
    head = head_of(claim.versions)
    if head is None or not head.held:
        if not run.current:
            return Outcome.SUPERSEDED
        if head is None:
            return run.fail_unclaimed("the resource has no version to converge")
        return run.recheck_later() if claim.queued else run.retry_soon()
    if head.status == Status.IN_PROGRESS and run.task.poll and head.lock_nonce == run.nonce:
        return poll_action(run, head, claim)
    if not run.current:
        run.write(head, {})  # held by our nonce only: a retried delivery of a superseded node
        return Outcome.SUPERSEDED
    definition = run.definition()
    deadline = stack_deadline(claim.stack)
    if deadline is not None and run.now() > deadline:
        minutes = claim.stack.timeout_mins
        return fail_unchanged(run, head, f"the stack operation timed out after {minutes} minute(s)")
    try:
        prepared = definition.prepare(run.name, inputs_of(run, definition), run.env.registry)
    except ConvTasksError as exc:
        return fail_unchanged(run, head, definition.reason(run.name, str(exc)))
    external_id = prepared.resolved.external_id
    refusal = adoption_refusal(head, external_id)
    if refusal is not None:
        return fail_unchanged(run, head, definition.reason(run.name, refusal))
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
            run,
            head,
            Action.CREATE,
            plugin,
            properties=prepared.properties,
            facade=_facade(definition, prepared),
        )
        started = datetime.fromtimestamp(ctx.started_at, UTC)
        deadline = _action_deadline(claim.stack, plugin, prepared.properties, started)
        # The version's deadline is written with the step's outcome: the step sees it now.
        ctx = _starting(replace(ctx, deadline=deadline.timestamp()), definition, prepared)
        intent = {
            **target,
            "action": Action.CREATE,
            "action_started_at": started,
            "action_deadline": deadline,
            "interrupt_reason": None,
        }
        if external_id is not None:
            ctx = adopting(ctx, external_id)
        elif plugin.makes_objects:
            # Recorded as begun before the type acts: if this step's worker dies after the
            # service made the object, the version still says a create began, with the
            # properties to find its object by (a delete by the create's token).
            begun = _begin_create(run, head, intent)
            if begun is None:
                return Outcome.LOST_LEASE
            step = run_step(plugin, ctx, first=True, wanted_attributes=wanted)
            return after_step(run, begun, Action.CREATE, step, claim, own=True)
        step = run_step(plugin, ctx, first=True, wanted_attributes=wanted)
        return after_step(run, head, Action.CREATE, step, claim, intent=intent, own=True)
    return _new_version(run, head, claim, decision.reason, verdict, prepared, target, wanted)


def _begin_create(
    run: NodeRun, head: ResourceVersion, intent: Mapping[str, Any]
) -> ResourceVersion | None:
    """Write the create as under way (its IN_PROGRESS event with it), keeping the lease; the
    version as written, or None if the lease was lost."""
    fields = {**intent, "status": Status.IN_PROGRESS, "plugin_data": {}, "physical_id": None}
    written = run.write(head, fields, [NodeEvent(Action.CREATE, Status.IN_PROGRESS)], release=False)
    if not written.ok:
        return None
    return replace(
        head,
        action=Action.CREATE,
        status=Status.IN_PROGRESS,
        properties=intent["properties_data"],
        plugin_data={},
        physical_id=None,
        action_started_at=intent["action_started_at"],
        action_deadline=intent["action_deadline"],
        interrupt_reason=None,
    )


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


def _action_deadline(
    stack: StackState | None, plugin: ResourceType, properties: Mapping[str, Any], now: datetime
) -> datetime:
    """When an action starting `now` must have finished: when the stack operation times out,
    or, if it has no timeout, after the resource type's default action timeout."""
    deadline = stack_deadline(stack) if stack is not None else None
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
    external_id = prepared.resolved.external_id
    if not in_place:
        refusal = replacement_refusal(external_id, head, reason)
        if refusal is not None:
            return fail_unchanged(run, head, run.definition().reason(run.name, refusal))
    plugin = prepared.resource_type()
    now = run.now()
    # A replacement of a resource whose create failed adopts its external_id afresh.
    adopting_data = {ADOPT: {"id": external_id}} if external_id is not None else {}
    fields = {
        **target,
        "action": action,
        "physical_id": head.physical_id if in_place else None,
        "plugin_data": dict(head.plugin_data) if in_place else adopting_data,
        "status_reason": reason,
        "action_started_at": now,
        "action_deadline": _action_deadline(claim.stack, plugin, prepared.properties, now),
    }
    new, woken = run.store.start_version(
        head,
        version=max(v.version for v in claim.versions) + 1,
        in_place=in_place,
        fields=fields,
        reason="" if in_place else replacement_reason(head.version),
        ttl=run.ttl,
    )
    run.wake(woken)
    if new is None:
        # Our lease ran out, or another node made that version first: it carries on.
        return Outcome.LOST_LEASE
    ctx = action_context(
        run,
        new,
        action,
        plugin,
        properties=prepared.properties,
        old_properties=head.properties if in_place else None,
        facade=_facade(run.definition(), prepared),
    )
    ctx = _starting(ctx, run.definition(), prepared)
    step = run_step(plugin, ctx, first=True, wanted_attributes=wanted)
    return after_step(run, new, action, step, claim, own=True)


def _resume(
    run: NodeRun,
    head: ResourceVersion,
    claim: Claim,
    wanted: frozenset[str],
    prepared: PreparedResource,
) -> Outcome:
    """Carry on an action whose worker died: start its step again with the same token (and
    the facade, update_policy and attribute references of the definition the node converges
    to: a child stack started again reads the same). Once it finishes, the node converges
    afresh if that action's definition is not the one this traversal wants."""
    definition = run.definition()
    return step_action(
        run,
        head,
        claim,
        wanted,
        first=True,
        facade=_facade(definition, prepared),
        prepared=prepared,
        starting=lambda ctx: _starting(ctx, definition, prepared),
    )


def _converged(
    run: NodeRun,
    version: ResourceVersion,
    claim: Claim,
    plugin: ResourceType,
    wanted: frozenset[str],
    target: Mapping[str, Any],
) -> Outcome:
    """Nothing to change: refresh what the template records, hand the stored output on."""
    stored = read_stored_output(version.attributes)
    ref, attrs = stored.ref, dict(stored.attributes)
    if not wanted <= attrs.keys() and MEMBER_VIEW not in attrs:
        ctx = action_context(run, version, Action.UPDATE, plugin, properties=version.properties)
        try:
            fresh = dict(plugin.attributes(ctx))
            attrs.update(pick_attributes(plugin, fresh, wanted))
            ref = plugin.reference(ctx)
        except Exception as exc:
            return fail_unchanged(run, version, run.redact(f"reading attributes failed: {exc}"))
    recorded = {
        "template_id": target["template_id"],
        "requires": target["requires"],
        "deletion_policy": target["deletion_policy"],
        "attr_data": stored_output(ref, attrs),
    }
    if not run.write(version, recorded).ok:
        return Outcome.LOST_LEASE
    picked = pick_attributes(plugin, attrs, wanted)
    run.hand_on(NodeOutput(ref, picked), settled=settled_cleanup(run, claim, version, None))
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
