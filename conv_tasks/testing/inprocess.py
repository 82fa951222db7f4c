"""The engine run in the test process, one node delivery at a time, on the cluster's services.

The kit drives some checks here rather than through the workers, so that it decides when
each delivery runs and what becomes of the messages it sends: it times every step of the
measured type, repeats a start with the same token, cancels an action under way, or lets a
"worker" die after a start and loses what died with it. Deliveries run in the order they are
due, as a worker would take them; a countdown is waited for, calling the case's outside actor
meanwhile. Resuming a stack hands it to the real workers: the tasks sent here go to their
broker, and the stack is started again from the database (StackControl.restart, as the
watchdog would).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, update

from conv_tasks.db import ResourceVersion, StackRow, version_of
from conv_tasks.db.models import Resource
from conv_tasks.db.session import session_scope
from conv_tasks.engine import (
    Dispatcher,
    EngineEnv,
    NewStackRequest,
    Outcome,
    StackControl,
    StepResult,
    TenantStacks,
    observing_context,
    parse_node_task,
    run_node,
    run_step,
    version_context,
)
from conv_tasks.sdk import ActionContext, Observed, ResourceType, Transient
from conv_tasks.statuses import Action
from conv_tasks.testing.case import UNDER_TEST, TypeCase
from conv_tasks.testing.measured import Recorder, WorkerKilled, measured_type
from conv_tasks.testing.report import CheckFailed
from conv_tasks.testing.retries import Retrier, RetryBudget

if TYPE_CHECKING:
    from conv_tasks.testing.cluster import Cluster

# How long the kit sleeps at most between two looks (at a countdown, at the stack's status).
TICK = 0.2
TERMINAL = ("COMPLETE", "FAILED")


class HeldDispatcher:
    """The dispatcher of the in-process engine: node tasks wait here, with when they are due."""

    def __init__(self) -> None:
        self.items: list[tuple[float, Mapping[str, Any]]] = []

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        self.items.append((time.monotonic() + (countdown or 0.0), payload))

    def nodes(self, payloads: Sequence[Mapping[str, Any]]) -> None:
        for payload in payloads:
            self.node(payload)

    def due_in(self) -> float | None:
        """Seconds until the next task is due (0: now); None if none is held."""
        if not self.items:
            return None
        return max(0.0, min(due for due, _ in self.items) - time.monotonic())

    def take(self) -> Mapping[str, Any]:
        self.items.sort(key=lambda item: item[0])
        return self.items.pop(0)[1]

    def hand_over(
        self, dispatcher: Dispatcher, lost: Callable[[Mapping[str, Any]], bool]
    ) -> list[Mapping[str, Any]]:
        """Send every task held on to `dispatcher`, with what is left of its countdown, except
        those `lost` picks (what a dead worker took with it); those lost."""
        now = time.monotonic()
        gone = [payload for _, payload in self.items if lost(payload)]
        for due, payload in self.items:
            if not lost(payload):
                dispatcher.node(payload, countdown=max(0.0, due - now) or None)
        self.items.clear()
        return gone


@dataclass(frozen=True)
class Start:
    """How a create's start went (InProcessEngine.start)."""

    outcome: Outcome | None  # of the last delivery (None: its worker was killed)
    begun: bool  # a call of the type's create returned
    put_off: int  # starts the service put off (Throttled, Transient) before that
    seconds: float  # how long the kit delivered
    last_error: str | None  # the last error a start raised, if one did
    last_put_off: bool  # that error was Throttled or Transient
    ended: str  # the stack's state after the deliveries

    def why_not_begun(self, budget: RetryBudget) -> str:
        """Why the create never began, in a sentence that blames the right party."""
        if self.put_off and self.last_put_off:
            return (
                f"the service put off every start of the type's create ({self.put_off} "
                f"start(s) over {self.seconds:.1f} s raised Throttled or Transient, the last "
                f"{self.last_error}) and the kit's retry budget ({budget.describe()}; "
                "TypeCase.retries) ran out: the create never began. That is the service's "
                "weather, not a fault the kit found in the type"
            )
        if self.last_error is not None:
            return (
                f"the type's create failed at its start, before it began anything the kit could "
                f"interrupt or kill ({self.last_error}); the stack ended {self.ended}"
            )
        return f"the type's create was never called; the stack ended {self.ended}"


class InProcessEngine:
    """The engine in this process, with the measured type under test, for one case."""

    def __init__(self, cluster: Cluster, case: TypeCase, recorder: Recorder) -> None:
        self.case = case
        self.recorder = recorder
        self.retrier = Retrier(case.retries)
        self.held = HeldDispatcher()
        registry = cluster.registry()
        self.original: type[ResourceType] = cluster.type_of(case)
        measured = measured_type(self.original, recorder)
        self.env: EngineEnv = cluster.engine_env(
            self.held, registry=registry.with_types({case.type_name: measured})
        )
        self.cluster = cluster
        self.client = cluster.client(case.tenant)
        self.stacks: list[str] = []  # every stack made here, for the secrets check
        self.killed = False  # a delivery ended in WorkerKilled

    def close(self) -> None:
        """Close the clients of the connections the type used here."""
        self.env.connections.close()

    # ------------------------------------------------------------ stack operations

    def create(self, name: str, template: Mapping[str, Any]) -> str:
        request = NewStackRequest(
            name=name,
            template=dict(template),
            parameters={},
            disable_rollback=True,  # a failure stays as it happened, for the report
        )
        stack_id = TenantStacks(self.env, self.case.tenant).create(request).stack_id
        self.stacks.append(stack_id)
        return stack_id

    def delete(self, stack_id: str) -> None:
        TenantStacks(self.env, self.case.tenant).delete(stack_id)

    def cancel(self, stack_id: str) -> None:
        """Cancel the operation under way, without a rollback: its actions are interrupted."""
        TenantStacks(self.env, self.case.tenant).cancel(stack_id, rollback=False)

    def resume_on_workers(
        self, stack_id: str, lost: Callable[[Mapping[str, Any]], bool] = lambda _: False
    ) -> None:
        """Hand the stack to the real workers, as if the worker that ran it here had died: the
        leases it held run out, the tasks it had sent go to them (but those `lost` picks), and
        the stack's operation is started again from the database (the watchdog's restart).

        The leases are ended now rather than after the lease's time to live: waiting them out
        proves the engine (its chaos tests do), not the type, which sees the same thing either
        way: its start run again, on another worker, with the same token."""
        self.expire_leases(stack_id)
        self.held.hand_over(self.cluster.dispatcher(), lost)
        stack = self.stack(stack_id)
        if stack.current_traversal is None:
            raise CheckFailed("resume", f"stack {stack_id} has no traversal to resume")
        workers = self.cluster.engine_env(self.cluster.dispatcher(), registry=self.env.registry)
        started = StackControl(workers).restart(
            stack_id, stack.current_traversal, "the conformance kit resumes after a killed worker"
        )
        if started is None:
            raise CheckFailed("resume", f"stack {stack_id} moved on before it could be resumed")

    def expire_leases(self, stack_id: str) -> int:
        """End every lease held on the stack's resources, as time would once their holder died;
        how many there were."""
        with session_scope(self.cluster.database_url) as session:
            expired = session.execute(
                update(Resource)
                .where(Resource.stack_id == stack_id, Resource.lock_expires_at.is_not(None))
                .values(lock_expires_at=func.now() - timedelta(seconds=1))
            )
            return int(expired.rowcount)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ deliveries

    def deliver_until(
        self, stack_id: str, action: str, stop: Callable[[], bool], *, act: bool = True
    ) -> Outcome | None:
        """Deliver held tasks in the order they are due (waiting for countdowns, and calling the
        case's outside actor meanwhile unless `act` is False) until `stop()` says so; the
        outcome of the last delivery. A WorkerKilled ends the deliveries too (`killed` is set,
        and None returned): what is held then had been sent before the death. CheckFailed
        when the case's timeout passes first."""
        deadline = time.monotonic() + self.case.timeout
        acting = act
        last: Outcome | None = None
        while not stop():
            if acting:
                acting = not self.cluster.act(self.case, self.client, stack_id, action)
            if time.monotonic() > deadline:
                raise CheckFailed(
                    f"{action.lower()} (in the test process)",
                    f"still under way after {self.case.timeout:.0f} s "
                    f"({self.stack(stack_id).state})",
                )
            wait = self.held.due_in()
            if wait is None or wait > 0:
                time.sleep(TICK if wait is None else min(wait, TICK))
                continue
            try:
                last = run_node(self.env, parse_node_task(self.held.take()))
            except WorkerKilled:
                self.killed = True
                return None
        return last

    def finish(self, stack_id: str, action: str, *, act: bool = True) -> StackRow:
        """Deliver until the stack's operation has ended; the stack then."""
        self.deliver_until(
            stack_id, action, lambda: self.stack(stack_id).state.endswith(TERMINAL), act=act
        )
        return self.stack(stack_id)

    def start(self, stack_id: str, *, act: bool = False) -> Start:
        """Deliver until the create of the resource under test has begun: until a call of the
        type's `create` (its start) has returned. A start that raised Throttled or Transient
        was put off (the engine starts it again, and the service did nothing the kit could
        count on); one the connection's rate limit held back never ran. Deliveries stop too
        when the create ended without beginning (its start failed), or when the service put
        off more starts than the case's retry budget allows."""
        recorder, budget = self.recorder, self.case.retries
        returned = recorder.returned(UNDER_TEST, "create")
        put_off = recorder.put_off_count(UNDER_TEST, "create")
        calls = recorder.count(UNDER_TEST, "create")
        began = time.monotonic()

        def stop() -> bool:
            if recorder.returned(UNDER_TEST, "create") > returned:
                return True
            if recorder.put_off_count(UNDER_TEST, "create") - put_off >= budget.attempts:
                return True
            if time.monotonic() - began > budget.seconds:
                return True
            return self.stack(stack_id).state.endswith(TERMINAL)

        outcome = self.deliver_until(stack_id, "CREATE", stop, act=act)
        # Every call since `calls` raised unless one returned: the last error is this start's.
        called = recorder.count(UNDER_TEST, "create") > calls
        raised = recorder.raised.get((UNDER_TEST, "create")) if called else None
        return Start(
            outcome=outcome,
            begun=recorder.returned(UNDER_TEST, "create") > returned,
            put_off=recorder.put_off_count(UNDER_TEST, "create") - put_off,
            seconds=time.monotonic() - began,
            last_error=None if raised is None else f"{type(raised).__name__}: {raised}",
            last_put_off=isinstance(raised, Transient),
            ended=self.stack(stack_id).state,
        )

    def run_action(self, stack_id: str, ctx: ActionContext) -> StepResult:
        """Start the action of `ctx` again, with its token, and poll it until it ends, as a node
        would (the engine's run_step, acting meanwhile); the last step's result."""
        plugin = self.plugin()
        deadline = time.monotonic() + self.case.timeout
        self.cluster.forget_acts(stack_id)
        step = run_step(plugin, replace(ctx, now=time.time()), first=True)
        while not step.done:
            due = time.monotonic() + step.poll_after
            while time.monotonic() < due:
                self.cluster.act(self.case, self.client, stack_id, ctx.action)
                time.sleep(TICK)
            if time.monotonic() > deadline:
                waited = f"still under way after {self.case.timeout:.0f} s"
                raise CheckFailed(f"{ctx.action.lower()} again", waited)
            ctx = replace(ctx, data=step.data, physical_id=step.physical_id, now=time.time())
            step = run_step(plugin, ctx, first=False)
        return step

    def delete_again(self, stack_id: str, version: ResourceVersion) -> StepResult:
        """The delete of `version` run once more, with its token, after it was deleted."""
        ctx = version_context(
            self.env, stack_id, self.case.tenant, version, self.plugin(), Action.DELETE
        )
        return self.run_action(stack_id, ctx)

    # ------------------------------------------------------------ reads

    def stack(self, stack_id: str) -> StackRow:
        with self.env.db.transaction() as tx:
            stack = tx.stacks.get_any(stack_id)
        if stack is None:
            raise CheckFailed("read", f"stack {stack_id} does not exist")
        return stack

    def head(self, stack_id: str, name: str = UNDER_TEST) -> ResourceVersion:
        with self.env.db.transaction() as tx:
            row = tx.resources.head(stack_id, name)
        if row is None:
            raise CheckFailed("read", f"stack {stack_id} has no resource {name}")
        return version_of(vars(row))

    def plugin(self) -> ResourceType:
        return self.env.registry.get(self.case.type_name)()

    def can_observe(self) -> bool:
        return self.original.observe is not ResourceType.observe

    def observe(
        self, stack_id: str, version: ResourceVersion, step: str = "observe"
    ) -> Observed | None:
        """The type's `observe` of `version`, with the context a node would give it; asked
        again while the service puts it off (Throttled, Transient) and the case's retry budget
        lasts (ServiceBusy, failing the check at `step`, when it runs out)."""
        plugin = self.plugin()
        ctx = observing_context(self.env, stack_id, self.case.tenant, version, plugin)
        return self.retrier.call(step, lambda: plugin.observe(ctx))
