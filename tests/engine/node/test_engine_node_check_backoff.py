"""A stack check whose service keeps throttling backs off as the guide says: each check asked
again later waits longer, doubling to 30 s (a check once asked again every half second
forever, its retry count forgotten between deliveries)."""

from __future__ import annotations

import itertools
from typing import ClassVar

from standins import RecordingDispatcher, StandinDatabase, standin_env, stepped_registry, template

from conv_tasks.engine import NewStackRequest, Outcome, TenantStacks
from conv_tasks.provider_errors import Throttled
from conv_tasks.resources import ActionContext, Progress
from conv_tasks.resources.builtin import TestResource

BUSY = "Test::BusyCheck"


class BusyCheck(TestResource):
    """A TestResource whose service answers every check with 429."""

    __test__ = False
    type_name: ClassVar[str] = BUSY

    def check(self, ctx: ActionContext) -> Progress:
        raise Throttled("429 Too Many Requests")


def test_a_throttled_check_waits_longer_each_time_up_to_30_s() -> None:
    env = standin_env(registry=stepped_registry().with_types({BUSY: BusyCheck}))
    stacks = TenantStacks(env, "tenant-a")
    assert isinstance(env.dispatcher, RecordingDispatcher) and isinstance(env.db, StandinDatabase)
    dispatcher = env.dispatcher
    stacks.create(NewStackRequest("s", template({"r": {"type": BUSY}}), {}))
    dispatcher.drain(env)
    stacks.check("s")

    waits = []
    for _ in range(9):
        delivery = dispatcher.deliver(env)
        assert delivery.outcome == Outcome.POLLING
        [again] = dispatcher.pending
        waits.append(again.countdown or 0.0)

    assert all(later > earlier for earlier, later in itertools.pairwise(waits[:6])), waits
    assert max(waits) <= 30.0 and waits[-1] >= 15.0, waits
