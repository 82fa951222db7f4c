"""Test::Stepped: OS::Heat::TestResource whose actions take a number of polls, not seconds.

TestResource waits by the wall clock (its context's `now`), which a test cannot move
without sleeping; this type finishes an action after `polls` polls instead, counting them
in its plugin data under the action's token (so an action resumed with the same token
carries on counting). Everything else is TestResource's: values on the sandbox, `fail`,
`fail_on`, `update_replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conv_tasks.resources import ActionContext, Progress, Registry
from conv_tasks.resources import default_registry as real_registry
from conv_tasks.resources.builtin import TestResource
from conv_tasks.sdk import INTEGER, PropertySchema

STEPPED = "Test::Stepped"
POLL_AFTER = 2.0  # seconds (of the test's clock) between two polls


class SteppedResource(TestResource):
    """A TestResource whose every action takes `polls` polls."""

    __test__ = False
    type_name: ClassVar[str] = STEPPED
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        **(TestResource.properties_schema or {}),
        "polls": PropertySchema(
            INTEGER, "How many polls each action takes.", default=0, update_allowed=True
        ),
    }

    def _step(self, ctx: ActionContext, action: str) -> Progress:
        key = f"polls {ctx.idempotency_token}"
        polls = int(ctx.data.get(key, 0))
        if polls < int(ctx.properties.get("polls") or 0):
            return Progress(done=False, data={key: polls + 1}, poll_after=POLL_AFTER)
        return super()._step(ctx, action)


def stepped_registry() -> Registry:
    """The real registry with Test::Stepped beside its types."""
    return real_registry().with_types({STEPPED: SteppedResource})
