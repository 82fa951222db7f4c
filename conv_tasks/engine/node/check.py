"""The check node of a stack check: ask a resource's type whether the resource is healthy.

claim the head version (one statement) → the plugin's check() → write CHECK_COMPLETE or
CHECK_FAILED with its events (one statement) → hand on (one Redis call). A check changes
no definition and adds no version: only the head's action, status and reason change.

A resource that was never created, whose last action failed, or whose action was cut
off is not asked: its check fails with the reason and its row is left as it is, so the
next update still decides about it as before (create it, replace it, resume it).
A delivery repeated after its check was written hands the same result on without asking
the plugin again. This module never starts an operation and never acts on a resource.
"""

from __future__ import annotations

from dataclasses import replace

from conv_tasks.db import Claim, NodeEvent, ResourceVersion
from conv_tasks.engine.node.actions import RETRY, action_context, run_step
from conv_tasks.engine.node.decide import head_of
from conv_tasks.engine.node.delivery import NodeRun, Outcome
from conv_tasks.engine.payload import NodeOutput
from conv_tasks.errors import NotFound
from conv_tasks.resources import ActionContext, ResourceType
from conv_tasks.statuses import Action, Status


def check_node(run: NodeRun) -> Outcome:
    claim = run.claim(cleanup=False, in_template=True)
    if claim.stack is None:
        return Outcome.STACK_GONE
    head = head_of(claim.versions)
    if head is None or not head.held:
        if not run.current:
            return Outcome.SUPERSEDED
        if head is None:
            run.store.event(run.name, Action.CHECK, Status.FAILED, "the resource does not exist")
            return _hand_on_failure(run, "the resource does not exist")
        return run.recheck_later() if claim.queued else run.retry_soon()
    if not run.current:
        run.write(head, {})
        return Outcome.SUPERSEDED
    if _checked_already(head, claim):
        run.write(head, {})
        return _hand_on(run, head.status_reason if head.status == Status.FAILED else None)
    unusable = _unusable(head)
    if unusable is not None:
        run.write(head, {}, [NodeEvent(Action.CHECK, Status.FAILED, unusable, head.physical_id)])
        return _hand_on_failure(run, unusable)
    try:
        plugin = run.plugin(head)  # a provider template's type too
    except NotFound as exc:
        reason = str(exc)
        run.write(head, {}, [NodeEvent(Action.CHECK, Status.FAILED, reason, head.physical_id)])
        return _hand_on_failure(run, reason)
    ctx = _check_context(run, head, claim, plugin)
    step = run_step(plugin, ctx, first=True)
    if not step.done:
        # A check is one question: one not answered yet is asked again later, holding nothing
        # (a nested stack's child check goes on meanwhile: say the traversal still moves).
        # It writes nothing on the version, so how often the service put it off travels
        # with the task, for the backoff to grow.
        run.write(head, {})
        run.env.syncpoints.heartbeat(run.task.traversal, str(run.task.node))
        put_off = int((step.data.get(RETRY) or {}).get("attempts", 0))
        fresh = run.task.again(nonce=None, poll=False, attempt=put_off, recheck=False)
        run.env.dispatcher.node(fresh.to_payload(), countdown=step.poll_after)
        return Outcome.POLLING
    failed = run.redact(step.failed) if step.failed is not None else None
    status = Status.FAILED if failed is not None else Status.COMPLETE
    fields = {
        "action": Action.CHECK,
        "status": status,
        "status_reason": failed or "",
        # Which check operation made this check (its start, as the stack row has it, so no
        # host's clock matters): a repeated delivery of this node finds it done.
        "action_started_at": claim.stack.started_at if claim.stack is not None else None,
    }
    events = [
        NodeEvent(Action.CHECK, Status.IN_PROGRESS),
        NodeEvent(Action.CHECK, status, failed or "", head.physical_id),
    ]
    if not run.write(head, fields, events).ok:
        return Outcome.LOST_LEASE
    return _hand_on(run, failed)


def _check_context(
    run: NodeRun, head: ResourceVersion, claim: Claim, plugin: ResourceType
) -> ActionContext:
    """The check's context: its token names this check operation (its traversal), so that a
    nested resource starts its child's check once however often it is asked; it started when
    the stack's check did."""
    ctx = action_context(run, head, Action.CHECK, plugin, properties=head.properties)
    started = claim.stack.started_at if claim.stack is not None else None
    data = ctx.data
    if run.task.attempt:
        data = {**data, RETRY: {"attempts": run.task.attempt}}
    return replace(
        ctx,
        idempotency_token=f"{ctx.idempotency_token}:{run.task.traversal}",
        started_at=started.timestamp() if started is not None else ctx.now,
        data=data,
    )


def _checked_already(head: ResourceVersion, claim: Claim) -> bool:
    started = claim.stack.started_at if claim.stack is not None else None
    return (
        head.action == Action.CHECK
        and head.status != Status.IN_PROGRESS
        and started is not None
        and head.action_started_at == started
    )


def _unusable(head: ResourceVersion) -> str | None:
    """Why the resource cannot be checked, or None if its type is to be asked."""
    if head.action == Action.INIT:
        return "the resource was never created"
    if head.status == Status.IN_PROGRESS:
        return f"its {head.action} was interrupted and has not finished"
    if head.status == Status.FAILED and head.action != Action.CHECK:
        return f"its {head.action} failed: {head.status_reason}".rstrip(": ")
    return None


def _hand_on(run: NodeRun, failed: str | None) -> Outcome:
    if failed is not None:
        return _hand_on_failure(run, failed)
    run.hand_on(NodeOutput())  # nothing follows a check node but the stack's own point
    return Outcome.COMPLETE


def _hand_on_failure(run: NodeRun, reason: str) -> Outcome:
    run.hand_on(NodeOutput(failed=(f"{run.name}: {reason}",)))
    return Outcome.FAILED
