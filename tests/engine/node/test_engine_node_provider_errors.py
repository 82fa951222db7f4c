"""What the engine does with what a type raises (conv_tasks.provider_errors), one step at a time:
back off and start again later, a delete's NotFound is done, failures are one line, the
connection's secrets are masked, slots in flight are given back."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from conv_tasks.engine.node.actions import RETRY, backoff, run_step
from conv_tasks.errors import ResourceFailure
from conv_tasks.provider_errors import Fatal, NotFound, Throttled, Transient
from conv_tasks.resources import ActionContext, Progress, ResourceType


class Script(ResourceType):
    """A type whose steps do what the test says, in order."""

    type_name = "Test::Script"

    def __init__(self, *steps: Any) -> None:
        self.steps = list(steps)
        self.calls: list[str] = []

    def _next(self, name: str) -> Progress:
        self.calls.append(name)
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step

    def create(self, ctx: ActionContext) -> Progress:
        return self._next("create")

    def check_create(self, ctx: ActionContext) -> Progress:
        return self._next("check_create")

    def delete(self, ctx: ActionContext) -> Progress:
        return self._next("delete")


@dataclass
class Connection:
    """A resource's connection as the engine hands it: a secret, a limit, slots in flight."""

    name: str = "api"
    kind: str = "http"
    secret: str = "t0p-s3cret"
    waits: list[float] = field(default_factory=list)
    held: set[str] = field(default_factory=set)

    @property
    def client(self) -> Any:
        return None

    def secrets(self) -> tuple[str, ...]:
        return (self.secret,)

    def admit(self, token: str, *, starting: bool) -> float:
        if self.waits:
            return self.waits.pop(0)
        self.held.add(token)
        return 0.0

    def release(self, token: str) -> None:
        self.held.discard(token)


def context(action: str = "CREATE", **changes: Any) -> ActionContext:
    now = time.time()
    base = ActionContext(
        stack_id="s",
        resource_name="web",
        action=action,
        idempotency_token="s:1:" + action,
        properties={},
        old_properties=None,
        physical_id=None,
        data={},
        started_at=now,
        now=now,
        sandbox=None,  # type: ignore[arg-type]
    )
    return replace(base, **changes)


def again(ctx: ActionContext, data: Mapping[str, Any]) -> ActionContext:
    return replace(ctx, data=dict(data))


def test_a_transient_start_is_started_again_on_the_next_step() -> None:
    plugin = Script(Transient("503 from the service"), Progress(done=True, physical_id="p-1"))
    ctx = context()
    first = run_step(plugin, ctx, first=True)
    assert not first.done and first.failed is None
    assert first.data[RETRY] == {"start": True, "attempts": 1}
    # The next delivery is a poll (first=False): the engine starts the action, not checks it.
    second = run_step(plugin, again(ctx, first.data), first=False)
    assert second.done and second.physical_id == "p-1"
    assert plugin.calls == ["create", "create"]
    assert RETRY not in second.data


def test_a_transient_poll_polls_again_with_a_growing_wait() -> None:
    plugin = Script(Transient("x"), Transient("x"), Progress(done=True))
    ctx = context(data={"job": 7})
    one = run_step(plugin, ctx, first=False)
    two = run_step(plugin, again(ctx, one.data), first=False)
    assert one.data[RETRY] == {"start": False, "attempts": 1} and one.data["job"] == 7
    assert two.data[RETRY]["attempts"] == 2
    assert run_step(plugin, again(ctx, two.data), first=False).done
    assert plugin.calls == ["check_create", "check_create", "check_create"]


def test_throttled_waits_at_least_what_the_service_asks() -> None:
    plugin = Script(Throttled("429", retry_after=12.5))
    step = run_step(plugin, context(), first=True)
    assert not step.done and step.poll_after >= 12.5


def test_backoff_grows_and_stays_within_its_bounds() -> None:
    rng = random.Random(4)
    waits = [backoff(n, rng=rng) for n in range(1, 12)]
    assert all(0.25 <= w <= 30 for w in waits)
    assert max(waits[:2]) < min(waits[6:])  # grows
    assert backoff(1, 99.0, rng=rng) == 99.0


def test_backoff_doubles_to_30_s_as_the_guide_says_and_never_past_it() -> None:
    # "0.5 s doubling to 30 s" (docs/guide): each wait is jittered down, never up.
    rng = random.Random(7)
    for attempts in range(1, 20):
        base = min(30.0, 0.5 * 2 ** (attempts - 1))
        waits = [backoff(attempts, rng=rng) for _ in range(200)]
        assert base / 2 <= min(waits) and max(waits) <= base, (attempts, min(waits), max(waits))


def test_not_found_on_delete_is_done_and_elsewhere_fails() -> None:
    gone = run_step(Script(NotFound("no such thing")), context("DELETE"), first=True)
    assert gone.done and gone.failed is None
    missing = run_step(Script(NotFound("no such thing")), context(), first=True)
    assert missing.done and missing.failed == "no such thing"


def test_a_failure_is_one_line_and_never_shows_the_connection_s_secret() -> None:
    connection = Connection()
    plugin = Script(Fatal("401 Unauthorized\nAuthorization: Bearer t0p-s3cret\nmore"))
    step = run_step(plugin, context(connection=connection), first=True)
    assert step.failed == "401 Unauthorized"
    plugin = Script(Fatal("token t0p-s3cret refused"))
    step = run_step(plugin, context(connection=connection), first=True)
    assert step.failed == "token ****** refused"
    plugin = Script(ValueError("bad t0p-s3cret"))
    step = run_step(plugin, context(connection=connection), first=True)
    assert step.failed == "CREATE raised ValueError: bad ******"


def test_the_worker_log_gets_the_traceback_but_not_the_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plugin = Script(ValueError("cannot reach https://u:t0p-s3cret@api.example/x"))
    with caplog.at_level(logging.ERROR, logger="conv_tasks.engine.node.actions"):
        run_step(plugin, context(connection=Connection()), first=True)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "ValueError: cannot reach https://u:******@api.example/x" in logged
    assert "Traceback" not in logged and "line " in logged  # the frames, as code lines
    assert "t0p-s3cret" not in logged and not any(r.exc_info for r in caplog.records)


def test_an_engine_failure_keeps_the_lines_it_was_worded_with() -> None:
    plugin = Script(ResourceFailure("deploy exited 2\nstderr: no such file"))
    step = run_step(plugin, context(), first=True)
    assert step.failed == "deploy exited 2\nstderr: no such file"


def test_a_rate_limit_puts_the_start_off_without_calling_the_type() -> None:
    connection = Connection(waits=[2.0])
    plugin = Script(Progress(done=False, poll_after=1.0), Progress(done=True, physical_id="p"))
    ctx = context(connection=connection)
    waited = run_step(plugin, ctx, first=True)
    assert plugin.calls == [] and not waited.done and waited.poll_after == 2.0
    assert waited.data[RETRY] == {"start": True, "attempts": 0}  # a wait, not a fault
    started = run_step(plugin, again(ctx, waited.data), first=False)
    assert plugin.calls == ["create"] and not started.done
    assert connection.held == {ctx.idempotency_token}
    done = run_step(plugin, again(ctx, started.data), first=False)
    assert done.done and connection.held == set()  # the slot in flight is given back


def test_a_slow_step_is_logged_over_the_type_s_budget(caplog: pytest.LogCaptureFixture) -> None:
    class Slow(Script):
        step_budget = 0.01

        def create(self, ctx: ActionContext) -> Progress:
            time.sleep(0.05)
            return Progress(done=True)

    with caplog.at_level(logging.WARNING):
        run_step(Slow(), context(), first=True)
    assert "over its step budget of 0.0 s" in caplog.text
