"""An action that ends before it finished tells its plugin to stop: a delete past its
deadline too (a ConvTasks::Celery::Task revokes its delete task then)."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from standins import STEPPED, RecordingDispatcher, SteppedResource, standin_env, stepped, template

from conv_tasks.engine import NewStackRequest, Outcome, TenantStacks
from conv_tasks.resources import ActionContext, Progress, default_registry

NEVER_DELETED = "Test::NeverDeleted"


class NeverDeleted(SteppedResource):
    """Created at once; its delete never finishes. Records every interrupt it is sent."""

    __test__ = False
    type_name: ClassVar[str] = NEVER_DELETED
    interrupted: ClassVar[list[tuple[str, str]]] = []

    def delete(self, ctx: ActionContext) -> Progress:
        return Progress(done=False, poll_after=0.05)

    def check_delete(self, ctx: ActionContext) -> Progress:
        return Progress(done=False, poll_after=0.05)

    def interrupt(self, ctx: ActionContext) -> None:
        self.interrupted.append((ctx.resource_name, ctx.action))


def _never_deleted(timeout: float) -> dict[str, Any]:
    body = stepped("v1", action_timeout_secs=timeout)
    return {**body, "type": NEVER_DELETED}


def test_a_delete_past_its_deadline_interrupts_its_plugin_and_fails() -> None:
    registry = default_registry().with_types(
        {STEPPED: SteppedResource, NEVER_DELETED: NeverDeleted}
    )
    env = standin_env(registry=registry)
    dispatcher = env.dispatcher
    assert isinstance(dispatcher, RecordingDispatcher)
    stacks = TenantStacks(env, "tenant-a")
    created = stacks.create(NewStackRequest("web", template({"r": _never_deleted(0.1)}), {}))
    assert [d.outcome for d in dispatcher.drain(env)] == [Outcome.COMPLETE]
    NeverDeleted.interrupted.clear()

    stacks.delete(created.stack_id)
    assert dispatcher.deliver(env).outcome == Outcome.POLLING
    assert NeverDeleted.interrupted == []
    time.sleep(0.2)  # the delete's deadline (action_timeout_secs, real time) passes
    outcomes = [d.outcome for d in dispatcher.drain(env)]

    assert Outcome.FAILED in outcomes, outcomes
    assert NeverDeleted.interrupted == [("r", "DELETE")]
