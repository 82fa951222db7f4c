"""The type under test, watched: every step timed, every context kept, a worker's death on cue.

`measured_type(cls, recorder)` is a subclass of the type with the same name, whose steps
(start and poll of each action, check, observe, interrupt, attributes) report to a Recorder:
how long each took, the first context each got and what it returned. The kit registers it in
the engine it runs in the test process, so the engine drives the type exactly as a worker
would, and the kit sees what happened. On cue (`Recorder.kill_after`) it lets a start finish
and then raises WorkerKilled, as a worker killed at that moment would leave things: the
service acted, conv_tasks recorded nothing. A step that raises is never the one killed: a
start the service put off (Throttled, Transient) did nothing the kill could catch, and the
engine starts it again. Never used by workers.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.sdk import ActionContext, ResourceType, Transient

# The ResourceType methods that are steps of an action, or reads the engine makes.
STEPS = (
    "create",
    "check_create",
    "update",
    "check_update",
    "delete",
    "check_delete",
    "suspend",
    "check_suspend",
    "resume",
    "check_resume",
    "check",
    "observe",
    "interrupt",
    "attributes",
)


class WorkerKilled(BaseException):
    """The worker running this step died right after it returned (BaseException: neither the
    engine nor the type catches it, so nothing of the step is recorded)."""


@dataclass(frozen=True)
class StepTiming:
    resource: str
    method: str
    seconds: float


@dataclass
class Recorder:
    """What the measured type saw and did, across all its instances."""

    timings: list[StepTiming] = field(default_factory=list)
    first_contexts: dict[tuple[str, str], ActionContext] = field(default_factory=dict)
    last_results: dict[tuple[str, str], Any] = field(default_factory=dict)
    calls: dict[tuple[str, str], int] = field(default_factory=dict)
    # How many calls returned (rather than raised): a create "has begun" once its start did.
    returns: dict[tuple[str, str], int] = field(default_factory=dict)
    errors: dict[tuple[str, str], str] = field(default_factory=dict)
    # The last exception each step raised, and how many raised the SDK's "ask again later"
    # (Throttled, Transient): the service put the step off, and the engine runs it again.
    raised: dict[tuple[str, str], Exception] = field(default_factory=dict)
    put_off: dict[tuple[str, str], int] = field(default_factory=dict)
    # (resource, method): after its next call returns, the worker dies.
    kill_after: tuple[str, str] | None = None

    def count(self, resource: str, method: str) -> int:
        return self.calls.get((resource, method), 0)

    def returned(self, resource: str, method: str) -> int:
        return self.returns.get((resource, method), 0)

    def put_off_count(self, resource: str, method: str) -> int:
        return self.put_off.get((resource, method), 0)

    def first_context(self, resource: str, method: str) -> ActionContext | None:
        return self.first_contexts.get((resource, method))

    def last_result(self, resource: str, method: str) -> Any:
        return self.last_results.get((resource, method))

    def slowest(self) -> StepTiming | None:
        return max(self.timings, key=lambda t: t.seconds, default=None)

    def took(self, ctx: ActionContext, method: str, began: float, outcome: Any) -> None:
        key = (ctx.resource_name, method)
        self.timings.append(StepTiming(ctx.resource_name, method, time.monotonic() - began))
        self.first_contexts.setdefault(key, ctx)
        self.calls[key] = self.calls.get(key, 0) + 1
        if isinstance(outcome, Exception):
            self.errors[key] = f"{type(outcome).__name__}: {outcome}"
            self.raised[key] = outcome
            if isinstance(outcome, Transient):
                self.put_off[key] = self.put_off.get(key, 0) + 1
        else:
            self.returns[key] = self.returns.get(key, 0) + 1
            self.last_results[key] = outcome

    def kills(self, ctx: ActionContext, method: str) -> bool:
        if self.kill_after != (ctx.resource_name, method):
            return False
        self.kill_after = None
        return True


def measured_type(cls: type[ResourceType], recorder: Recorder) -> type[ResourceType]:
    """`cls` with every step reporting to `recorder` (same type_name, schemas and rules)."""
    namespace: dict[str, Any] = {"__test__": False, "__doc__": cls.__doc__}
    for name in STEPS:
        namespace[name] = _timed(getattr(cls, name), name, recorder)
    return type(f"Measured{cls.__name__}", (cls,), namespace)


def _timed(
    method: Callable[[ResourceType, ActionContext], Any], name: str, recorder: Recorder
) -> Callable[[ResourceType, ActionContext], Any]:
    @functools.wraps(method)
    def timed(self: ResourceType, ctx: ActionContext) -> Any:
        began = time.monotonic()
        try:
            outcome = method(self, ctx)
        except Exception as exc:
            recorder.took(ctx, name, began, exc)
            raise
        recorder.took(ctx, name, began, outcome)
        if recorder.kills(ctx, name):
            raise WorkerKilled(f"the worker died after {ctx.resource_name}'s {name} returned")
        return outcome

    return timed
