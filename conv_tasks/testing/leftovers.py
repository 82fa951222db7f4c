"""The check that a create which ended without a physical id leaves nothing behind.

A create may make its object and end before its type returned the object's id: a cancel
interrupts it, or its worker dies. The engine then deletes the version by its create's
token (ActionContext.create_token), and the type must find and remove what that token made.
Three stacks, each with names of its own (TypeCase.unique), made and deleted in the test
process (InProcessEngine): a create that polls, cancelled once it has begun; a create whose
worker dies right after its start returned; and, for a create that polls, one whose worker
dies right after its first poll. After each stack's delete, the type's `observe` of what the
create left (by its physical id, or by its token) must find nothing, and the case's
`count_objects` must be back where it was before the stack ran. The kit's observes are
asked again while the service puts them off (retries.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from conv_tasks.db import ResourceVersion
from conv_tasks.engine import Outcome, leftover_context
from conv_tasks.statuses import Status
from conv_tasks.testing.case import UNDER_TEST, TypeCase, unique_suffix
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import TERMINAL, InProcessEngine, Start
from conv_tasks.testing.lifecycle import stack_name
from conv_tasks.testing.report import CheckFailed, NotApplicable

# Which of a case's properties a stack is made with.
Properties = Callable[[TypeCase], Mapping[str, Any]]


@dataclass(frozen=True)
class Found:
    """What the kit found of a create's object: `observed`, whether `observe` finds it (None:
    the type cannot observe), and the case's count now and before the stack ran (None: the
    case gives no count_objects)."""

    observed: bool | None
    count: int | None
    baseline: int | None

    @property
    def grown(self) -> bool:
        return self.count is not None and self.count > (self.baseline or 0)

    @property
    def seen(self) -> bool:
        return bool(self.observed) or self.grown

    def describe(self) -> str:
        said: list[str] = []
        if self.observed:
            said.append("the type's observe finds the object")
        if self.grown:
            said.append(f"count_objects says {self.count} (before the stack ran: {self.baseline})")
        return " and ".join(said) or "nothing"


class Leftovers:
    def __init__(self, cluster: Cluster, case: TypeCase, engine: InProcessEngine) -> None:
        self.cluster = cluster
        self.case = case
        self.engine = engine
        self.client = cluster.client(case.tenant)
        # The case's count for the stack under check before anything of it ran.
        self._baseline: int | None = None

    def nothing_left(self) -> str:
        """The check: every stack's delete left nothing of what its create made."""
        if not self.engine.original.makes_objects:
            raise NotApplicable("the type makes no objects (makes_objects is False)")
        if not self.engine.can_observe() and self.case.count_objects is None:
            raise NotApplicable(
                "the type cannot observe and the case gives no count_objects: nothing can "
                "look for what a create left"
            )
        seen = [self._cancelled(), self._killed_at_start(), self._killed_at_first_poll()]
        return "; ".join(seen)

    # ------------------------------------------------------------ the three stacks

    def _cancelled(self) -> str:
        engine = self.engine
        with self._stack("left-cancelled", lambda case: case.slow) as stack_id:
            if self._begun(stack_id, "start").outcome != Outcome.POLLING:
                return "cancelled: nothing under way to cancel (the create ended in one step)"
            engine.cancel(stack_id)
            engine.deliver_until(
                stack_id,
                "CREATE",
                lambda: engine.head(stack_id).status != Status.IN_PROGRESS,
                act=False,
            )
            return self._deleted(stack_id, "cancelled")

    def _killed_at_start(self) -> str:
        engine = self.engine
        with self._stack("left-killed", lambda case: case.properties) as stack_id:
            engine.recorder.kill_after = (UNDER_TEST, "create")
            try:
                self._begun(stack_id, "kill after the start")
            finally:
                engine.recorder.kill_after = None
            return self._deleted(stack_id, "killed after its start")

    def _killed_at_first_poll(self) -> str:
        engine = self.engine
        slow = self.case.slow_properties is not None
        with self._stack(
            "left-poll-killed", lambda c: c.slow if slow else c.properties
        ) as stack_id:
            if self._begun(stack_id, "start").outcome != Outcome.POLLING:
                return "killed at its first poll: no poll (the create ended in one step)"
            engine.recorder.kill_after = (UNDER_TEST, "check_create")
            engine.killed = False
            try:
                engine.deliver_until(
                    stack_id, "CREATE", lambda: engine.stack(stack_id).state.endswith(TERMINAL)
                )
            finally:
                engine.recorder.kill_after = None
            if not engine.killed:
                return "killed at its first poll: the create ended without a poll"
            return self._deleted(stack_id, "killed at its first poll")

    # ------------------------------------------------------------ shared steps

    def _begun(self, stack_id: str, step: str) -> Start:
        """Deliver until the create has begun (InProcessEngine.start); CheckFailed at `step`,
        saying why, when it did not (the worker killed on cue counts as begun)."""
        self.engine.killed = False
        start = self.engine.start(stack_id)
        if not (start.begun or self.engine.killed):
            raise CheckFailed(step, start.why_not_begun(self.case.retries))
        return start

    def _deleted(self, stack_id: str, what: str) -> str:
        """Delete the stack (the worker that ran it may be dead: its leases are ended) and
        look for what the create of its resource left."""
        engine = self.engine
        left = engine.head(stack_id)
        engine.expire_leases(stack_id)
        before = self._found(stack_id, left, f"observe before the delete ({what})")
        deletes = engine.recorder.count(UNDER_TEST, "delete")
        engine.delete(stack_id)
        final = engine.finish(stack_id, "DELETE")
        if final.state != "DELETE_COMPLETE":
            raise CheckFailed(f"delete ({what})", f"the stack ended {final.state}")
        if left.physical_id is None and engine.recorder.count(UNDER_TEST, "delete") == deletes:
            raise CheckFailed(
                f"delete ({what})",
                f"the create ended {left.action}_{left.status} without a physical id, and the "
                "type's delete was never called for it",
            )
        after = self._found(stack_id, left, f"observe after the delete ({what})")
        if after.seen:
            raise CheckFailed(
                f"after the delete ({what})",
                f"{after.describe()} that the create with token {stack_id}:{left.id}:CREATE "
                "made: the type's delete did not find it by that token (ctx.create_token)",
            )
        made = "it had made its object" if before.seen else "it had made nothing yet"
        ended = f"{left.action}_{left.status}, physical id {left.physical_id or 'none'}"
        return f"{what} ({ended}; {made}): nothing left after the delete"

    def _found(self, stack_id: str, left: ResourceVersion, step: str) -> Found:
        """What is there now of the object that `left`'s create made."""
        observed: bool | None = None
        if self.engine.can_observe():
            plugin = self.engine.plugin()
            ctx = leftover_context(self.engine.env, stack_id, self.case.tenant, left, plugin)
            seen = self.engine.retrier.call(step, lambda: plugin.observe(ctx))
            observed = seen.exists if seen is not None else None
        count = self.cluster.count_objects(self.case, self.client, stack_id)
        return Found(observed, count, self._baseline)

    @contextmanager
    def _stack(self, purpose: str, properties: Properties) -> Iterator[str]:
        """A stack of the case, with names of its own, made in this process; deleted at the
        end if the check did not (whatever state it was left in; what cannot be deleted here,
        the run's clean-up tries again and reports)."""
        case = self.case.unique(unique_suffix())
        stack_id = self.engine.create(
            stack_name(self.case, purpose), case.template(properties(case))
        )
        # Nothing of it ran yet: what the count says now is not the stack's.
        self._baseline = self.cluster.count_objects(self.case, self.client, stack_id)
        try:
            yield stack_id
        finally:
            self.engine.recorder.kill_after = None
            if not self.engine.stack(stack_id).deleted:
                with suppress(Exception):
                    self.engine.expire_leases(stack_id)
                    self.engine.delete(stack_id)
                    self.engine.finish(stack_id, "DELETE")
