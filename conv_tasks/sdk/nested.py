"""The base of resource types implemented by a child stack (OS::Heat::Stack, provider
templates): the child completes, fails, updates and is deleted with its parent resource.

Each action starts an operation on the child through the ChildStacks service in the
ActionContext, then reads the child's state on every poll (soon at first, less often as the
wait grows); a step never waits. A stack check checks the child too, and a stack suspend
(resume) suspends (resumes) it. The child's failure becomes the resource's, naming the
child. A subclass says only what the child should be
(child_request) and how its outputs appear as attributes; the base adds the resource's own
definition (ctx.facade) to the request, for the child's resource_facade calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from conv_tasks.errors import ConvTasksError, ResourceFailure
from conv_tasks.limits import MAX_TIMEOUT_MINS, MIN_TIMEOUT_MINS
from conv_tasks.sdk.children import (
    COMPLETE,
    FAILED,
    IN_PROGRESS,
    ChildRequest,
    ChildStacks,
)
from conv_tasks.sdk.context import ActionContext, engine_service
from conv_tasks.sdk.progress import Progress
from conv_tasks.sdk.resource_type import ResourceType
from conv_tasks.sdk.terms import CHECK, DELETE, SUSPEND

# Polls start this often and slow down as the wait grows (a tenth of it), up to the maximum:
# a small child is noticed at once, a long one costs a poll every few seconds.
MIN_POLL_SECS = 0.2
MAX_POLL_SECS = 5.0


def poll_after(waited: float) -> float:
    """Seconds until the next look at a child stack that has been waited for `waited` s."""
    return min(MAX_POLL_SECS, max(MIN_POLL_SECS, waited / 10))


def child_timeout(ctx: ActionContext, chosen: Any = None) -> int | None:
    """The child's timeout in whole minutes: what is left of the parent action's deadline,
    or `chosen` (the resource's own timeout, minutes) when that is shorter; at least one."""
    left = None
    if ctx.deadline is not None:
        minutes = math.ceil((ctx.deadline - ctx.now) / 60)
        left = max(MIN_TIMEOUT_MINS, min(MAX_TIMEOUT_MINS, minutes))
    if chosen:
        own = max(MIN_TIMEOUT_MINS, math.ceil(float(chosen)))
        return own if left is None else min(own, left)
    return left


class NestedStackResource(ResourceType):
    """A resource whose physical id is the id of a child stack it owns."""

    # Output names depend on the child's template.
    dynamic_attributes: ClassVar[bool] = True
    owns_child_stack: ClassVar[bool] = True

    def child_request(self, ctx: ActionContext) -> ChildRequest:
        """What the child stack should be for these properties."""
        raise NotImplementedError

    def preview_request(self, ctx: ActionContext) -> ChildRequest | None:
        """What the child will be once this update of the resource has finished: a preview
        previews the child against it. It only reads (a group reads its child's members)."""
        return self._request(ctx)

    def _request(self, ctx: ActionContext) -> ChildRequest:
        """child_request with this resource's own definition for the child's
        resource_facade calls (a subclass that sets a facade keeps its own)."""
        request = self.child_request(ctx)
        if request.facade is None and ctx.facade is not None:
            request = replace(request, facade=ctx.facade)
        return request

    # ------------------------------------------------------------- create, update
    def create(self, ctx: ActionContext) -> Progress:
        request = self._request(ctx)
        try:
            child_id = child_stacks(ctx).create(
                parent_stack_id=ctx.stack_id,
                resource_name=ctx.resource_name,
                token=ctx.idempotency_token,
                request=request,
            )
        except ResourceFailure:
            raise
        except ConvTasksError as exc:
            raise self._failure(ctx, f"nested stack refused: {exc}") from None
        return Progress(done=False, physical_id=child_id, poll_after=MIN_POLL_SECS)

    def check_create(self, ctx: ActionContext) -> Progress:
        return self._await(ctx)

    def update(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:  # its create failed before the child existed
            return self.create(ctx)
        request = self._request(ctx)
        try:
            child_stacks(ctx).update(ctx.physical_id, request)
        except ConvTasksError as exc:
            raise self._failure(ctx, f"nested stack update refused: {exc}") from None
        return Progress(done=False, poll_after=MIN_POLL_SECS)

    def check_update(self, ctx: ActionContext) -> Progress:
        return self._await(ctx)

    def _await(self, ctx: ActionContext) -> Progress:
        """Done when the child's operation completed; the child's failure is ours."""
        if ctx.physical_id is None:
            raise self._failure(ctx, "the nested stack was never created")
        child = child_stacks(ctx).get(ctx.physical_id)
        if child.deleted:
            raise self._failure(ctx, f"nested stack {child.name or child.id} is gone")
        if child.status == FAILED:
            raise self._failure(ctx, f"nested stack {child.name} failed: {child.reason}")
        if child.status == COMPLETE and child.action != DELETE:
            data = {"outputs": dict(child.outputs), "stack_name": child.name}
            return Progress(done=True, data=data)
        return Progress(done=False, poll_after=poll_after(ctx.now - ctx.started_at))

    # ---------------------------------------------------------------------- check
    def check(self, ctx: ActionContext) -> Progress:
        """As Heat: check the child stack and wait for its check. Asked again on every
        poll: `ctx.idempotency_token` names this check of the parent, so the child's check
        is started once and then only read."""
        if ctx.physical_id is None:
            raise self._failure(ctx, "the nested stack was never created")
        children = child_stacks(ctx)
        child = children.check(ctx.physical_id, ctx.idempotency_token)
        name = child.name or child.id
        if child.deleted:
            raise self._failure(ctx, f"nested stack {name} is gone")
        if child.action != CHECK:
            if child.status == IN_PROGRESS:
                raise self._failure(ctx, f"nested stack {name} is {child.state}: not checked")
            # Its check was not started (another operation took the child meanwhile).
            return Progress(done=False, poll_after=MIN_POLL_SECS)
        if child.status == IN_PROGRESS:
            return Progress(done=False, poll_after=poll_after(ctx.now - ctx.started_at))
        if child.status == FAILED:
            failed = ", ".join(sorted(children.failed_resources(ctx.physical_id)))
            raise self._failure(
                ctx, f"nested stack {name} is CHECK_FAILED (resources: {failed}): {child.reason}"
            )
        return Progress(done=True)

    # ------------------------------------------------------------ suspend, resume
    def suspend(self, ctx: ActionContext) -> Progress:
        """As Heat: suspend the child stack, and wait for it. Asked again on every poll:
        `ctx.idempotency_token` names this suspend of the parent, so the child's is started
        once and then only read."""
        return self._walk(ctx)

    def check_suspend(self, ctx: ActionContext) -> Progress:
        return self._walk(ctx)

    def resume(self, ctx: ActionContext) -> Progress:
        return self._walk(ctx)

    def check_resume(self, ctx: ActionContext) -> Progress:
        return self._walk(ctx)

    def _walk(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:
            return Progress(done=True)  # no child: nothing to suspend
        child = child_stacks(ctx).walk(ctx.physical_id, ctx.action, ctx.idempotency_token)
        name = child.name or child.id
        if child.deleted:
            raise self._failure(ctx, f"nested stack {name} is gone")
        if child.action != ctx.action:
            suspended = child.action == SUSPEND and child.status == COMPLETE
            if child.status == COMPLETE and suspended == (ctx.action == SUSPEND):
                # Suspended already (a suspend tried again), or not suspended (a resume).
                return Progress(done=True)
            said = "suspended" if ctx.action == SUSPEND else "resumed"
            raise self._failure(ctx, f"nested stack {name} is {child.state}: not {said}")
        if child.status == IN_PROGRESS:
            return Progress(done=False, poll_after=poll_after(ctx.now - ctx.started_at))
        if child.status == FAILED:
            raise self._failure(ctx, f"nested stack {name} is {child.state}: {child.reason}")
        return Progress(done=True)

    # --------------------------------------------------------------------- delete
    def delete(self, ctx: ActionContext) -> Progress:
        child_id = ctx.physical_id
        if child_id is None and ctx.children is not None:
            # A create that ended (interrupted, failed, its worker killed) before recording the
            # child: find the child by the create's token.
            child_id = ctx.children.made_for(
                parent_stack_id=ctx.stack_id, token=ctx.create_token or ctx.idempotency_token
            )
        if child_id is None:
            return Progress(done=True)
        child_stacks(ctx).delete(child_id)
        return Progress(done=False, physical_id=child_id, poll_after=MIN_POLL_SECS)

    def check_delete(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:
            return Progress(done=True)
        child = child_stacks(ctx).get(ctx.physical_id)
        if child.deleted:
            return Progress(done=True)
        if child.action == DELETE and child.status == FAILED:
            raise self._failure(ctx, f"nested stack {child.name} failed: {child.reason}")
        if child.action != DELETE and child.status != IN_PROGRESS:
            # Not being deleted (an operation of its own ended after our delete was asked
            # for): ask again, which is safe to repeat.
            child_stacks(ctx).delete(ctx.physical_id)
        return Progress(done=False, poll_after=poll_after(ctx.now - ctx.started_at))

    def interrupt(self, ctx: ActionContext) -> None:
        """The parent's operation was cancelled (or timed out, or the parent is being
        deleted): the child's create or update is cancelled too, without its own rollback;
        the parent's rollback or delete drives the child from there."""
        if ctx.physical_id is not None and ctx.action != DELETE and ctx.children is not None:
            ctx.children.cancel(ctx.physical_id)

    # ----------------------------------------------------------------- attributes
    def child_outputs(self, ctx: ActionContext) -> Mapping[str, Any]:
        return dict(ctx.data.get("outputs") or {})

    def reference(self, ctx: ActionContext) -> str | None:
        return ctx.physical_id

    def _failure(self, ctx: ActionContext, what: str) -> ResourceFailure:
        return ResourceFailure(
            f"Resource {ctx.resource_name}: {what}", resource=ctx.resource_name, action=ctx.action
        )


def child_stacks(ctx: ActionContext) -> ChildStacks:
    return engine_service(ctx, ctx.children, "nested-stack service")
