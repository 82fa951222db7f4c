"""The checks of what a type must survive: a start sent twice, a cancel, a worker's death.

Each runs the engine in the test process with the measured type (InProcessEngine), so that
it happens the same way every time: the same token is started again after the action
finished; a create under way is cancelled and must end FAILED as interrupted; a worker dies
after the create's start (before conv_tasks recorded it, and, for a create that polls, after
it was recorded but before the first poll), and the real workers resume the stack, which must
end with exactly one object. Every stack a check makes is deleted at its end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

from conv_tasks.engine import Outcome
from conv_tasks.sdk import Progress, ResourceType
from conv_tasks.statuses import Status
from conv_tasks.testing.case import UNDER_TEST, TypeCase
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import InProcessEngine
from conv_tasks.testing.lifecycle import stack_name
from conv_tasks.testing.report import CheckFailed, NotApplicable

# Which of the tasks a killed worker had sent died with it.
Lost = Callable[[Mapping[str, Any]], bool]


class Resilience:
    def __init__(self, cluster: Cluster, case: TypeCase, engine: InProcessEngine) -> None:
        self.cluster = cluster
        self.case = case
        self.engine = engine
        self.client = cluster.client(case.tenant)

    # ------------------------------------------------------------ the checks

    def same_token_twice(self) -> str:
        engine = self.engine
        with self._stack("token", self.case.properties) as stack_id:
            final = engine.finish(stack_id, "CREATE")
            if final.state != "CREATE_COMPLETE":
                raise CheckFailed("create (in the test process)", self._ended(stack_id))
            first = engine.head(stack_id).physical_id
            ctx = engine.recorder.first_context(UNDER_TEST, "create")
            if ctx is None:
                raise CheckFailed("create (in the test process)", "the type's create never ran")
            again = engine.run_action(stack_id, ctx)
            if again.failed is not None:
                raise CheckFailed("start again", f"the same token's second create failed: "
                                  f"{again.failed}")  # fmt: skip
            if first is not None and again.physical_id not in (None, first):
                raise CheckFailed(
                    "start again",
                    f"the same token made a second object: {again.physical_id}, after {first}",
                )
            return f"both creates with one token give {first}; " + self._one_object(stack_id)

    def interrupt(self) -> str:
        engine = self.engine
        with self._stack("interrupt", self.case.slow) as stack_id:
            outcome = engine.first_step(stack_id)
            if outcome != Outcome.POLLING:
                hint = "" if self.case.slow_properties else " (slow_properties can make it wait)"
                raise NotApplicable(
                    f"the create finished in its first step ({outcome}): nothing was under way "
                    f"to interrupt{hint}"
                )
            calls = engine.recorder.count(UNDER_TEST, "interrupt")
            engine.cancel(stack_id)
            engine.deliver_until(
                stack_id,
                "CREATE",
                lambda: engine.head(stack_id).status != Status.IN_PROGRESS,
                act=False,
            )
            head = engine.head(stack_id)
            if (head.action, head.status) != ("CREATE", Status.FAILED) or (
                "interrupted" not in head.status_reason
            ):
                raise CheckFailed(
                    "cancel",
                    f"the create ended {head.action}_{head.status} ({head.status_reason or '-'}), "
                    "not FAILED as interrupted",
                )
            error = engine.recorder.errors.get((UNDER_TEST, "interrupt"))
            if error is not None:
                raise CheckFailed("interrupt", f"the type's interrupt raised {error}")
            if self._has_own_interrupt():
                if engine.recorder.count(UNDER_TEST, "interrupt") == calls:
                    raise CheckFailed("interrupt", "the type's interrupt was never called")
                return f"the create ended FAILED ({head.status_reason}); interrupt was called"
            return (
                f"the create ended FAILED ({head.status_reason}); the type keeps "
                "ResourceType.interrupt: it has nothing to stop"
            )

    def killed_worker(self) -> str:
        """A worker dies after the create's start returned, before conv_tasks recorded it; and,
        when the create polls, another after the start was recorded, before the first poll."""
        before_record, start = self._killed("killed", self.case.properties, self._kill_at_start)
        detail = f"killed before the start was recorded: {before_record}"
        if self.case.slow_properties is None and isinstance(start, Progress) and start.done:
            return detail + "; no poll to lose (the create finishes in its first step)"
        before_poll, _ = self._killed("poll-lost", self.case.slow, self._lose_first_poll)
        return f"{detail}; killed before the first poll: {before_poll}"

    # ------------------------------------------------------------ the killed worker

    def _kill_at_start(self, stack_id: str) -> Lost | str:
        """The worker dies right after the start returns: what it had sent before is on the
        broker, nothing after it was sent. What it lost (a string: not done, why)."""
        self.engine.recorder.kill_after = (UNDER_TEST, "create")
        self.engine.killed = False
        self.engine.first_step(stack_id)
        if not self.engine.killed:
            self.engine.recorder.kill_after = None
            raise CheckFailed("kill", "the type's create was never started")
        return lambda _payload: False

    def _lose_first_poll(self, stack_id: str) -> Lost | str:
        """The start is recorded, then its worker dies with the first poll it had taken. What
        it lost (a string: not done, why)."""
        outcome = self.engine.first_step(stack_id)
        if outcome != Outcome.POLLING:
            return f"no poll to lose (the create finished in its first step: {outcome})"

        def first_poll(payload: Mapping[str, Any]) -> bool:
            return payload.get("stack_id") == stack_id and bool(payload.get("poll"))

        return first_poll

    def _killed(
        self, purpose: str, properties: Mapping[str, Any], kill: Callable[[str], Lost | str]
    ) -> tuple[str, Any]:
        engine = self.engine
        with self._stack(purpose, properties) as stack_id:
            lost = kill(stack_id)
            start = engine.recorder.last_result(UNDER_TEST, "create")
            if isinstance(lost, str):
                engine.finish(stack_id, "CREATE")
                return lost, start
            made = engine.head(stack_id).physical_id or getattr(start, "physical_id", None)
            engine.resume_on_workers(stack_id, lost)
            final = self.cluster.wait(self.case, self.client, stack_id, "CREATE")
            if final["status"] != "CREATE_COMPLETE":
                raise CheckFailed(f"resume ({purpose})", self._ended(stack_id))
            head = engine.head(stack_id)
            if made is not None and head.physical_id != made:
                raise CheckFailed(
                    f"resume ({purpose})",
                    f"the start before the kill made {made}; the resumed create made "
                    f"{head.physical_id}: two objects",
                )
            return f"resumed by the workers to {head.physical_id}, " + self._one_object(
                stack_id
            ), start

    # ------------------------------------------------------------ shared steps

    def _one_object(self, stack_id: str) -> str:
        """Observe sees the resource's object, and the case's count (if any) is one."""
        head = self.engine.head(stack_id)
        seen = "observe not applicable"
        if self.engine.can_observe():
            observed = self.engine.observe(stack_id, head)
            if observed is not None and not observed.exists:
                raise CheckFailed("observe", f"object {head.physical_id} does not exist")
            if observed is not None:
                seen = "observe sees it"
        count = self.cluster.count_objects(self.case, self.client, stack_id)
        if count is None:
            return seen
        if count != 1:
            raise CheckFailed("count", f"the stack has {count} real objects, not 1")
        return f"{seen}; one object counted"

    def _ended(self, stack_id: str) -> str:
        stack = self.engine.stack(stack_id)
        try:
            head = self.engine.head(stack_id)
        except CheckFailed:
            return f"the stack ended {stack.state}: {stack.status_reason or '-'}"
        return (
            f"the stack ended {stack.state}: {UNDER_TEST} is {head.action}_{head.status} "
            f"({head.status_reason or '-'})"
        )

    def _has_own_interrupt(self) -> bool:
        return self.engine.original.interrupt is not ResourceType.interrupt

    @contextmanager
    def _stack(self, purpose: str, properties: Mapping[str, Any]) -> Iterator[str]:
        """A stack of the case made in this process for one check, deleted at its end
        (whatever state the check left it in)."""
        stack_id = self.engine.create(stack_name(self.case, purpose), properties)
        try:
            yield stack_id
        except BaseException:
            with suppress(Exception):
                self._delete(stack_id)
            raise
        self._delete(stack_id)

    def _delete(self, stack_id: str) -> None:
        engine = self.engine
        engine.recorder.kill_after = None
        if engine.stack(stack_id).deleted:
            return
        engine.delete(stack_id)
        final = engine.finish(stack_id, "DELETE")
        if final.state != "DELETE_COMPLETE":
            raise CheckFailed("delete (in the test process)", self._ended(stack_id))
