"""A start run again after its worker died sees what a first start sees: the references to
the resource's attributes and its update_policy (a provider template's child carries an
output for each resource.NAME read; a group plans with its policy). On the stand-ins."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from standins import (
    RecordingDispatcher,
    StandinDatabase,
    SteppedResource,
    standin_env,
    stepped_registry,
    template,
)

from conv_tasks.engine import ChangeRequest, EngineEnv, NewStackRequest, Outcome, TenantStacks
from conv_tasks.resources import ActionContext, Progress

STARTING = "Test::Starting"
STARTS = "starts"


class StartingResource(SteppedResource):
    """A stepped resource that records, in its data, the references each create start saw."""

    __test__ = False
    type_name: ClassVar[str] = STARTING

    def create(self, ctx: ActionContext) -> Progress:
        progress = super().create(ctx)
        seen = [[attribute, list(path)] for attribute, path in ctx.attribute_references]
        starts = [*ctx.data.get(STARTS, []), seen]
        return Progress(
            done=progress.done,
            physical_id=progress.physical_id,
            data={**progress.data, STARTS: starts},
            poll_after=progress.poll_after,
        )


@pytest.fixture
def env() -> EngineEnv:
    return standin_env(registry=stepped_registry().with_types({STARTING: StartingResource}))


def test_a_start_run_again_after_its_worker_died_sees_the_references(
    stacks: TenantStacks,
    db: StandinDatabase,
    dispatcher: RecordingDispatcher,
) -> None:
    body: dict[str, Any] = template(
        {"r": {"type": STARTING, "properties": {"value": "v1", "polls": 1}}}
    )
    body["outputs"] = {"o": {"value": {"get_attr": ["r", "resource.x", "y"]}}}
    created = stacks.create(NewStackRequest("web", body, {}, disable_rollback=True))
    # The first start runs, then its worker dies with the poll.
    assert dispatcher.deliver(stacks.env).outcome == Outcome.POLLING
    assert [sent.node for sent in dispatcher.lose()] == ["update:r"]

    # An update of the same template waits out the dead worker's lease, then starts the
    # create again with its token, before converging.
    stacks.update("web", ChangeRequest(body, {}))
    assert [d.outcome for d in dispatcher.drain(stacks.env)][-1] == Outcome.COMPLETE
    [head] = [row for row in db.resources(created.stack_id) if row.name == "r"]
    assert head.state == "CREATE_COMPLETE"
    read = [["resource.x", ["y"]]]
    assert head.plugin_data[STARTS] == [read, read]
