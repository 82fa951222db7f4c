"""The check that a create which ended without a physical id leaves nothing behind.

A create may make its object and end before its type returned the object's id: a cancel
interrupts it, or its worker dies. The engine then deletes the version by its create's
token (ActionContext.create_token), and the type must find and remove what that token made.
Three stacks, each made and deleted in the test process (InProcessEngine): a create that
polls, cancelled; a create whose worker dies right after its start returned; and, for a
create that polls, one whose worker dies right after its first poll. After each stack's
delete, the type's `observe` of what the create left (by its physical id, or by its token)
must find nothing, and the case's `count_objects` must be back where it was before the stack.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from conv_tasks.db import ResourceVersion
from conv_tasks.engine import Outcome, leftover_context
from conv_tasks.statuses import Status
from conv_tasks.testing.case import UNDER_TEST, TypeCase
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import TERMINAL, InProcessEngine
from conv_tasks.testing.lifecycle import stack_name
from conv_tasks.testing.report import CheckFailed, NotApplicable


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
        seen = [self._interrupted(), self._killed_at_start(), self._killed_at_first_poll()]
        return "; ".join(seen)

    # ------------------------------------------------------------ the three stacks

    def _interrupted(self) -> str:
        engine = self.engine
        with self._stack("left-cancelled", self.case.slow) as stack_id:
            if engine.first_step(stack_id) != Outcome.POLLING:
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
        with self._stack("left-killed", self.case.properties) as stack_id:
            engine.recorder.kill_after = (UNDER_TEST, "create")
            engine.killed = False
            engine.first_step(stack_id)
            if not engine.killed:
                engine.recorder.kill_after = None
                raise CheckFailed("kill after the start", "the type's create was never started")
            return self._deleted(stack_id, "killed after its start")

    def _killed_at_first_poll(self) -> str:
        engine = self.engine
        properties = self.case.slow if self.case.slow_properties else self.case.properties
        with self._stack("left-poll-killed", properties) as stack_id:
            if engine.first_step(stack_id) != Outcome.POLLING:
                return "killed at its first poll: no poll (the create ended in one step)"
            engine.recorder.kill_after = (UNDER_TEST, "check_create")
            engine.killed = False
            engine.deliver_until(
                stack_id, "CREATE", lambda: engine.stack(stack_id).state.endswith(TERMINAL)
            )
            if not engine.killed:
                engine.recorder.kill_after = None
                return "killed at its first poll: the create ended without polling"
            return self._deleted(stack_id, "killed at its first poll")

    # ------------------------------------------------------------ shared steps

    def _deleted(self, stack_id: str, what: str) -> str:
        """Delete the stack (the worker that ran it may be dead: its leases are ended) and
        look for what the create of its resource left."""
        engine = self.engine
        left = engine.head(stack_id)
        engine.expire_leases(stack_id)
        before = self._found(stack_id, left)
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
        after = self._found(stack_id, left)
        if after.seen:
            raise CheckFailed(
                f"after the delete ({what})",
                f"{after.describe()} of what the create with token "
                f"{stack_id}:{left.id}:CREATE made",
            )
        made = "it had made its object" if before.seen else "it had made nothing yet"
        ended = f"{left.action}_{left.status}, physical id {left.physical_id or 'none'}"
        return f"{what} ({ended}; {made}): nothing left after the delete"

    def _found(self, stack_id: str, left: ResourceVersion) -> Found:
        """What is there now of the object that `left`'s create made."""
        observed: bool | None = None
        if self.engine.can_observe():
            plugin = self.engine.plugin()
            ctx = leftover_context(self.engine.env, stack_id, self.case.tenant, left, plugin)
            seen = plugin.observe(ctx)
            observed = seen.exists if seen is not None else None
        count = self.cluster.count_objects(self.case, self.client, stack_id)
        return Found(observed, count, self._baseline)

    @contextmanager
    def _stack(self, purpose: str, properties: Mapping[str, Any]) -> Iterator[str]:
        """A stack of the case made in this process; deleted at the end if the check did not
        (whatever state it was left in)."""
        stack_id = self.engine.create(stack_name(self.case, purpose), properties)
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


@dataclass(frozen=True)
class Found:
    """What the looks found: `observed`, whether `observe` finds the object (None: the type
    cannot observe), and the case's count now and before the stack ran (None: no count)."""

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
            said.append("observe finds the object")
        if self.grown:
            said.append(f"count_objects says {self.count} (before the stack ran: {self.baseline})")
        return " and ".join(said) or "nothing"
