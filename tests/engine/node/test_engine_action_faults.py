"""A plugin's action meets a fault of our own services, or fails on its own.

A PostgreSQL or Redis outage under the plugin (its sandbox row, a deployment's
row) is no failure of the resource: run_step lets the fault through, so that
the node retries the step. Anything else a plugin raises fails the resource.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis.exceptions
import sqlalchemy.exc

from conv_tasks.engine.node.actions import run_step
from conv_tasks.resources import ActionContext, Progress, ResourceType


class _Raising(ResourceType):
    type_name = "Test::Raising"

    def __init__(self, fault: Exception) -> None:
        self.fault = fault

    def create(self, ctx: ActionContext) -> Progress:
        raise self.fault


def _ctx() -> ActionContext:
    now = time.time()
    return ActionContext(
        stack_id="s",
        resource_name="r",
        action="CREATE",
        idempotency_token="s:r:0:CREATE",
        properties={},
        old_properties=None,
        physical_id=None,
        data={},
        started_at=now,
        now=now,
        sandbox=None,  # type: ignore[arg-type] - the plugin never reaches it
    )


@pytest.mark.parametrize(
    "fault",
    [
        sqlalchemy.exc.OperationalError("INSERT", {}, Exception("server closed the connection")),
        sqlalchemy.exc.InterfaceError("INSERT", {}, Exception("connection already closed")),
        redis.exceptions.ConnectionError("Connection refused"),
    ],
    ids=lambda fault: type(fault).__name__,
)
def test_a_fault_of_our_own_services_is_retried_not_a_resource_failure(fault: Any) -> None:
    with pytest.raises(type(fault)):
        run_step(_Raising(fault), _ctx(), first=True)


def test_anything_else_a_plugin_raises_fails_the_resource() -> None:
    step = run_step(_Raising(ValueError("bad cloud answer")), _ctx(), first=True)
    assert step.done
    assert step.failed == "CREATE raised ValueError: bad cloud answer"
