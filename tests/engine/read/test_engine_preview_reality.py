"""A preview's `reality` when the type's observe could not read the object: a passing fault
(Throttled, Transient) says so (`retryable`, and the service's retry_after when it gave one),
so that a caller may preview again; any other error is only `unknown`. The rest of the
preview stands either way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest
from standins import standin_env, template

from conv_tasks.engine import NewStackRequest, TenantStacks
from conv_tasks.engine.read import preview_stack
from conv_tasks.provider_errors import Fatal, Throttled, Transient
from conv_tasks.resources import ActionContext, default_registry
from conv_tasks.resources.builtin import TestResource
from conv_tasks.resources.plugin import Observed

# What the observe of each resource raises, by its value.
RAISED: dict[str, Exception] = {
    "throttled": Throttled("Resource t: 429 Too Many Requests", retry_after=3.0),
    "bare-throttle": Throttled("Resource b: 429 Too Many Requests"),
    "unavailable": Transient("Resource u: 503 Service Unavailable"),
    "refused": Fatal("Resource f: 403 Forbidden"),
}


class Unreadable(TestResource):
    """A TestResource whose observe fails as its value says."""

    __test__ = False
    type_name: ClassVar[str] = "Test::Unreadable"

    def observe(self, ctx: ActionContext) -> Observed | None:
        raise RAISED[str(ctx.properties.get("value"))]


@pytest.fixture
def realities() -> Mapping[str, Any]:
    env = standin_env(registry=default_registry().with_types({"Test::Unreadable": Unreadable}))
    names = {"t": "throttled", "b": "bare-throttle", "u": "unavailable", "f": "refused"}
    doc = template(
        {n: {"type": "Test::Unreadable", "properties": {"value": v}} for n, v in names.items()}
    )
    TenantStacks(env, "tenant-a").create(NewStackRequest("s", doc, {}))
    env.dispatcher.drain(env)  # type: ignore[attr-defined]
    preview = preview_stack(env, tenant="tenant-a", stack_ref="s", template=doc, parameters={})
    assert [e["action"] for e in preview["resources"]] == ["unchanged"] * 4
    return {entry["name"]: entry["reality"] for entry in preview["resources"]}


def test_a_throttled_observe_is_retryable_after_the_services_wait(
    realities: Mapping[str, Any],
) -> None:
    assert realities["t"] == {
        "unknown": "Resource t: 429 Too Many Requests",
        "retryable": True,
        "retry_after": 3.0,
    }
    assert realities["b"] == {"unknown": "Resource b: 429 Too Many Requests", "retryable": True}


def test_a_transient_observe_is_retryable_and_a_fatal_one_is_not(
    realities: Mapping[str, Any],
) -> None:
    assert realities["u"] == {"unknown": "Resource u: 503 Service Unavailable", "retryable": True}
    assert realities["f"] == {"unknown": "Resource f: 403 Forbidden"}
