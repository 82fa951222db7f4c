"""The node of a stack suspend or resume: the resource's type suspends or resumes it.

claim the head version (one statement) → the plugin's suspend()/resume() → write
SUSPEND_COMPLETE or SUSPEND_FAILED (RESUME_…) with its events (one statement) → hand on
(one Redis call). An action that takes time (a deployment waiting for its server's agent)
is recorded IN_PROGRESS under the node's lease and polled, like a create. A type with
nothing to suspend completes at once.

What is left alone, completing at once without an event: a suspend of a resource that is
suspended already (a failed suspend tried again, or a repeated delivery), a resume of one
that is not suspended, and a resource that was never created or was deleted. A resource
whose last create, update or check failed is not asked: its suspend fails with the reason.
The node changes no definition and adds no version; it never starts an operation.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from conv_tasks.db import Claim, NodeEvent, ResourceVersion
from conv_tasks.engine.node.actions import StepResult, action_context, run_step
from conv_tasks.engine.node.decide import head_of
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.node.steps import stack_deadline, stop_action
from conv_tasks.engine.payload import NodeOutput
from conv_tasks.errors import NotFound
from conv_tasks.graph import Phase
from conv_tasks.resources import ActionContext, ResourceType
from conv_tasks.statuses import Action, Status

_ACTIONS = {Phase.SUSPEND: Action.SUSPEND, Phase.RESUME: Action.RESUME}


def walk_node(run: NodeRun) -> Outcome:
    action = _ACTIONS[run.task.node.phase]
    claim = run.claim(cleanup=False, in_template=True)
    if claim.stack is None:
        return Outcome.STACK_GONE
    head = head_of(claim.versions)
    if head is None or not head.held:
        if not run.current:
            return Outcome.SUPERSEDED
        if head is None:
            return _hand_on(run, None)  # nothing of it exists: nothing to suspend
        return run.recheck_later() if claim.queued else run.retry_soon()
    under_way = head.action == action and head.status == Status.IN_PROGRESS
    if under_way and run.task.poll and head.lock_nonce == run.nonce:
        return _poll(run, head, action)
    if not run.current:
        run.write(head, {})
        return Outcome.SUPERSEDED
    if not under_way:
        unusable = _unusable(head, action)
        if unusable is not None:
            event = NodeEvent(action, Status.FAILED, unusable, head.physical_id)
            run.write(head, {}, [event])
            return _hand_on(run, unusable)
        if not _wanted(head, action):
            run.write(head, {})
            return _hand_on(run, None)
    try:
        plugin = run.plugin(head)
    except NotFound as exc:
        reason = str(exc)
        run.write(head, {}, [NodeEvent(action, Status.FAILED, reason, head.physical_id)])
        return _hand_on(run, reason)
    # Started now, or (a worker died under it) carried on with the same start and token.
    started = head.action_started_at if under_way else None
    started = started or (claim.stack.started_at if claim.stack is not None else None)
    started = started or run.now()
    deadline = head.action_deadline if under_way else None
    deadline = deadline or _deadline(claim, plugin, head, started)
    ctx = _context(run, head, action, plugin, started, deadline)
    step = run_step(plugin, ctx, first=True)
    intent = {
        "action": action,
        "action_started_at": started,
        "action_deadline": deadline,
        "interrupt_reason": None,
    }
    begun = [] if under_way else [NodeEvent(action, Status.IN_PROGRESS)]
    return _after_step(run, head, action, step, intent, begun)


def _poll(run: NodeRun, head: ResourceVersion, action: Action) -> Outcome:
    """One more step of the action under way, unless it was interrupted (the stack is being
    deleted) or its deadline passed."""
    if head.interrupt_reason:
        stop_action(run, head, action)
        step = StepResult(True, f"{action} interrupted: {head.interrupt_reason}")
        return _after_step(run, head, action, step, {}, [])
    deadline = head.action_deadline
    if deadline is not None and run.now() > deadline:
        started = head.action_started_at or deadline
        took = max(0.0, (deadline - started).total_seconds())
        stop_action(run, head, action)
        reason = f"the {action} action timed out: it did not finish within {took:.0f} s"
        step = StepResult(True, reason)
        return _after_step(run, head, action, step, {}, [])
    plugin = run.plugin(head)
    started = head.action_started_at or run.now()
    ctx = _context(run, head, action, plugin, started, deadline)
    return _after_step(run, head, action, run_step(plugin, ctx, first=False), {}, [])


def _context(
    run: NodeRun,
    head: ResourceVersion,
    action: Action,
    plugin: ResourceType,
    started: datetime,
    deadline: datetime | None,
) -> ActionContext:
    """The step's context. Its token names this suspend or resume (the version, the action
    and when it started), so that a step run again makes nothing twice, and the next suspend
    of the same version is a new one."""
    ctx = action_context(run, head, action, plugin, properties=head.properties)
    return replace(
        ctx,
        idempotency_token=f"{ctx.idempotency_token}:{started.timestamp():.6f}",
        started_at=started.timestamp(),
        deadline=deadline.timestamp() if deadline is not None else None,
    )


def _deadline(
    claim: Claim, plugin: ResourceType, head: ResourceVersion, started: datetime
) -> datetime:
    """When the action must have finished: the stack's timeout, else the type's own."""
    deadline = stack_deadline(claim.stack) if claim.stack is not None else None
    return deadline or started + timedelta(seconds=plugin.action_timeout(head.properties))


def _after_step(
    run: NodeRun,
    head: ResourceVersion,
    action: Action,
    step: StepResult,
    intent: dict[str, object],
    begun: list[NodeEvent],
) -> Outcome:
    physical_id = step.physical_id or head.physical_id
    if not step.done:
        fields = {**intent, "status": Status.IN_PROGRESS, "plugin_data": step.data}
        written = run.write(head, fields, begun, release=False, ttl=run.ttl + step.poll_after)
        return run.poll_later(step.poll_after) if written.ok else Outcome.LOST_LEASE
    failed = run.redact(step.failed) if step.failed is not None else None
    status = Status.FAILED if failed is not None else Status.COMPLETE
    fields = {
        **intent,
        "status": status,
        "status_reason": failed or "",
        "interrupt_reason": None,
        "plugin_data": dict(step.data) if step.data else dict(head.plugin_data),
    }
    events = [*begun, NodeEvent(action, status, failed or "", physical_id)]
    if not run.write(head, fields, events).ok:
        return Outcome.LOST_LEASE
    return _hand_on(run, failed)


def _unusable(head: ResourceVersion, action: Action) -> str | None:
    """Why the resource cannot be suspended (resumed), or None if its state allows it."""
    if head.status == Status.IN_PROGRESS:
        return f"its {head.action} was interrupted and has not finished"
    if head.status == Status.FAILED and head.action not in (Action.SUSPEND, Action.RESUME):
        return f"its {head.action} failed: {head.status_reason}".rstrip(": ")
    return None


def _wanted(head: ResourceVersion, action: Action) -> bool:
    """Whether the resource has something to suspend (resume): one never created, or
    deleted, has not; nor one suspended already (resumed: not suspended)."""
    if head.action in (Action.INIT, Action.DELETE):
        return False
    if action == Action.SUSPEND:
        return not (head.action == Action.SUSPEND and head.status == Status.COMPLETE)
    return head.action == Action.SUSPEND or (
        head.action == Action.RESUME and head.status == Status.FAILED
    )


def _hand_on(run: NodeRun, failed: str | None) -> Outcome:
    if failed is not None:
        run.hand_on(NodeOutput(failed=(f"{run.name}: {failed}",)))
        return Outcome.FAILED
    run.hand_on(NodeOutput())  # a walk hands nothing on but its success
    return Outcome.COMPLETE
