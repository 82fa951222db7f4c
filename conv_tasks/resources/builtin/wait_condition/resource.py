"""OS::Heat::WaitCondition: waits for `count` SUCCESS signals on its handle, by polling.

Every step reads the handle's signals and judges them
(decide.py); a worker is never blocked. Signals the
handle received before the wait began count (Heat keeps them on the handle).
An update waits again, from the update's start, for the new count. Deleting
the wait condition clears the handle's signals, as Heat does. This module
never sees a handle's token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.resources.builtin.wait_condition.decide import WaitOutcome, judge
from conv_tasks.resources.builtin.wait_condition_handle import wait_handle_store
from conv_tasks.sdk import (
    INTEGER,
    MAX_WAIT_CONDITION_SECS,
    MAX_WAIT_SIGNALS,
    NUMBER,
    STRING,
    ActionContext,
    AttributeSchema,
    Constraint,
    Progress,
    PropertySchema,
    ResourceFailure,
    ResourceType,
    SupportStatus,
    WaitSignal,
    data_text,
    token_physical_id,
)

# The engine's own deadline for the action comes this long after the wait's timeout, so the
# wait condition fails first, with its own reason ("N of COUNT received").
DEADLINE_MARGIN_SECS = 60.0


class WaitConditionResource(ResourceType):
    """Completes when its handle holds `count` SUCCESS signals; fails on FAILURE or timeout."""

    type_name: ClassVar[str] = "OS::Heat::WaitCondition"
    # It only reads its handle's signals (the handle is the object, and its own resource).
    makes_objects: ClassVar[bool] = False
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.2")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "handle": PropertySchema(
            STRING,
            "The wait condition handle signalled (get_resource of one).",
            required=True,
        ),
        "timeout": PropertySchema(
            NUMBER,
            "Seconds to wait for `count` signals.",
            required=True,
            constraints=(Constraint.range(1, MAX_WAIT_CONDITION_SECS),),
        ),
        "count": PropertySchema(
            INTEGER,
            "How many SUCCESS signals complete the wait.",
            default=1,
            update_allowed=True,
            constraints=(Constraint.range(1, MAX_WAIT_SIGNALS),),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "data": AttributeSchema(
            "JSON text of each signal's data by its id: {id: data}.", type=STRING
        ),
    }

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        return float(properties.get("timeout") or MAX_WAIT_CONDITION_SECS) + DEADLINE_MARGIN_SECS

    def create(self, ctx: ActionContext) -> Progress:
        physical_id = ctx.physical_id or token_physical_id(ctx.idempotency_token)
        progress = self._wait(ctx)
        return Progress(progress.done, physical_id=physical_id, poll_after=progress.poll_after)

    def check_create(self, ctx: ActionContext) -> Progress:
        return self._wait(ctx)

    def update(self, ctx: ActionContext) -> Progress:
        return self._wait(ctx)

    def check_update(self, ctx: ActionContext) -> Progress:
        return self._wait(ctx)

    def delete(self, ctx: ActionContext) -> Progress:
        handle = ctx.properties.get("handle")
        if isinstance(handle, str) and handle:
            wait_handle_store(ctx).clear(handle)
        return Progress(done=True)

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"data": data_text(self._signals(ctx) or ())}

    def _signals(self, ctx: ActionContext) -> tuple[WaitSignal, ...] | None:
        handle = ctx.properties.get("handle")
        if not isinstance(handle, str) or not handle:
            return None
        return wait_handle_store(ctx).signals(handle, ctx.stack_id)

    def _wait(self, ctx: ActionContext) -> Progress:
        signals = self._signals(ctx)
        if signals is None:
            raise self._failure(
                ctx, f"{ctx.properties.get('handle')!r} is not a valid wait condition handle"
            )
        timeout = float(ctx.properties["timeout"])
        count = int(ctx.properties.get("count") or 1)
        verdict = judge(signals, count=count, waited=ctx.now - ctx.started_at, timeout=timeout)
        if verdict.outcome == WaitOutcome.SUCCEEDED:
            return Progress(done=True)
        if verdict.outcome == WaitOutcome.FAILED:
            raise self._failure(ctx, f"a FAILURE signal was received: {verdict.reason}")
        if verdict.outcome == WaitOutcome.TIMED_OUT:
            raise self._failure(ctx, f"timed out after {timeout:g} s: {verdict.reason}")
        return Progress(done=False, poll_after=verdict.poll_after)

    def _failure(self, ctx: ActionContext, what: str) -> ResourceFailure:
        return ResourceFailure(
            f"WaitCondition {ctx.resource_name}: {what}",
            resource=ctx.resource_name,
            action=ctx.action,
        )
