"""The checks of what a type must survive: a start sent twice, a cancel, a worker's death.

Each runs the engine in the test process with the measured type (InProcessEngine), so that
it happens the same way every time: the same token is started again after the action
finished; a create under way is cancelled and must end FAILED as interrupted; a worker dies
after the create's start (before conv_tasks recorded it, and, for a create that polls, after
it was recorded but before the first poll), and the real workers resume the stack, which must
end with exactly one object.

A create "has begun" when a call of the type's `create` (its start) has returned: a start
that raised Throttled or Transient was put off by the service, did nothing the kit can count
on, and is started again by the engine; the interrupt and the kill wait for one that returned
(InProcessEngine.start), or say why none did. Every stack a check makes has names of its own
(TypeCase.unique) and is deleted at its end; what a failed check leaves, the run's clean-up
deletes (conformance.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

from conv_tasks.engine import Outcome
from conv_tasks.sdk import Progress, ResourceType, Transient
from conv_tasks.statuses import Status
from conv_tasks.testing.case import UNDER_TEST, TypeCase, unique_suffix
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import InProcessEngine, Start
from conv_tasks.testing.lifecycle import stack_name
from conv_tasks.testing.report import CheckFailed, NotApplicable

# Which of the tasks a killed worker had sent died with it.
Lost = Callable[[Mapping[str, Any]], bool]
# Which of a case's properties a stack is made with.
Properties = Callable[[TypeCase], Mapping[str, Any]]


def _created(case: TypeCase) -> Mapping[str, Any]:
    return case.properties


def _slow(case: TypeCase) -> Mapping[str, Any]:
    return case.slow


class Resilience:
    def __init__(self, cluster: Cluster, case: TypeCase, engine: InProcessEngine) -> None:
        self.cluster = cluster
        self.case = case
        self.engine = engine
        self.client = cluster.client(case.tenant)

    # ------------------------------------------------------------ the checks

    def same_token_twice(self) -> str:
        engine = self.engine
        with self._stack("token", _created) as stack_id:
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
        with self._stack("interrupt", _slow) as stack_id:
            outcome = self._begun(stack_id, "start").outcome
            if outcome != Outcome.POLLING:
                hint = "" if self.case.slow_properties else " (slow_properties can make it wait)"
                raise NotApplicable(
                    f"the create finished in its first step ({outcome}): nothing was under way "
                    f"to interrupt{hint}"
                )
            calls = engine.recorder.count(UNDER_TEST, "interrupt")
            returned = engine.recorder.returned(UNDER_TEST, "interrupt")
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
            called = engine.recorder.count(UNDER_TEST, "interrupt") > calls
            raised = engine.recorder.raised.get((UNDER_TEST, "interrupt"))
            if called and engine.recorder.returned(UNDER_TEST, "interrupt") == returned:
                if not isinstance(raised, Transient):
                    raise CheckFailed(
                        "interrupt",
                        f"the type's interrupt raised {type(raised).__name__}: {raised}",
                    )
                # The service put it off: the engine does not ask an interrupt again (the
                # action has ended), and what it would have stopped is the delete's to remove.
                return (
                    f"the create ended FAILED ({head.status_reason}); interrupt was called, and "
                    f"the service put it off ({type(raised).__name__}: {raised}): the engine "
                    "does not ask again, the delete cleans up"
                )
            if self._has_own_interrupt():
                if not called:
                    raise CheckFailed("interrupt", "the type's interrupt was never called")
                return f"the create ended FAILED ({head.status_reason}); interrupt was called"
            return (
                f"the create ended FAILED ({head.status_reason}); the type keeps "
                "ResourceType.interrupt: it has nothing to stop"
            )

    def killed_worker(self) -> str:
        """A worker dies after the create's start returned, before conv_tasks recorded it; and,
        when the create polls, another after the start was recorded, before the first poll."""
        before_record, start = self._killed("killed", _created, self._kill_at_start)
        detail = f"killed before the start was recorded: {before_record}"
        if self.case.slow_properties is None and isinstance(start, Progress) and start.done:
            return detail + "; no poll to lose (the create finishes in its first step)"
        before_poll, _ = self._killed("poll-lost", _slow, self._lose_first_poll)
        return f"{detail}; killed before the first poll: {before_poll}"

    # ------------------------------------------------------------ the killed worker

    def _kill_at_start(self, stack_id: str) -> Lost | str:
        """The worker dies right after a start returns (the create has begun): what it had sent
        before is on the broker, nothing after it was sent. What it lost (a string: not done,
        why)."""
        self.engine.recorder.kill_after = (UNDER_TEST, "create")
        try:
            self._begun(stack_id, "kill")
        finally:
            self.engine.recorder.kill_after = None
        return lambda _payload: False

    def _lose_first_poll(self, stack_id: str) -> Lost | str:
        """The start is recorded, then its worker dies with the first poll it had taken. What
        it lost (a string: not done, why)."""
        outcome = self._begun(stack_id, "start").outcome
        if outcome != Outcome.POLLING:
            return f"no poll to lose (the create finished in its first step: {outcome})"

        def first_poll(payload: Mapping[str, Any]) -> bool:
            return payload.get("stack_id") == stack_id and bool(payload.get("poll"))

        return first_poll

    def _killed(
        self, purpose: str, properties: Properties, kill: Callable[[str], Lost | str]
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
                    f"{head.physical_id}: two objects (the type's create, started again with "
                    "the same token, did not find what its first start made)",
                )
            return f"resumed by the workers to {head.physical_id}, " + self._one_object(
                stack_id
            ), start

    # ------------------------------------------------------------ shared steps

    def _begun(self, stack_id: str, step: str) -> Start:
        """Deliver until the create has begun (InProcessEngine.start); CheckFailed at `step`,
        saying why, when it did not (the worker killed on cue counts as begun)."""
        self.engine.killed = False
        start = self.engine.start(stack_id)
        if not (start.begun or self.engine.killed):
            raise CheckFailed(step, start.why_not_begun(self.case.retries))
        return start

    def _one_object(self, stack_id: str) -> str:
        """Observe sees the resource's object, and the case's count (if any) is one."""
        head = self.engine.head(stack_id)
        seen = "observe not applicable"
        if self.engine.can_observe():
            observed = self.engine.observe(stack_id, head)
            if observed is not None and not observed.exists:
                raise CheckFailed(
                    "observe", f"the type's observe says object {head.physical_id} does not exist"
                )
            if observed is not None:
                seen = "observe sees it"
        count = self.cluster.count_objects(self.case, self.client, stack_id)
        if count is None:
            return seen
        if count != 1:
            fault = (
                "the type's create made more than one for one resource"
                if count > 1
                else "the type's create reported an object the service does not have"
            )
            raise CheckFailed("count", f"the stack has {count} real objects, not 1: {fault}")
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
    def _stack(self, purpose: str, properties: Properties) -> Iterator[str]:
        """A stack of the case, with names of its own, made in this process for one check
        (`properties`: which of the case's), deleted at its end (whatever state the check left
        it in; what cannot be deleted here, the run's clean-up tries again and reports)."""
        case = self.case.unique(unique_suffix())
        template = case.template(properties(case))
        stack_id = self.engine.create(stack_name(self.case, purpose), template)
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
