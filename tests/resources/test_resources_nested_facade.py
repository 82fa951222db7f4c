"""Nested-stack resources hand their own definition (ActionContext.facade) to the child
they create or update, whichever type they are; without one the request carries none."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conv_tasks.resources import ActionContext, ChildRequest
from conv_tasks.resources.builtin.heat_stack import HeatStackResource
from conv_tasks.resources.provider_template import provider_template_type
from conv_tasks.sdk import ChildStack

FACADE = {"metadata": {"role": "web"}, "deletion_policy": "Retain", "update_policy": {}}
PROVIDED = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
resources:
  v: {type: OS::Heat::Value, properties: {value: {resource_facade: metadata}, type: json}}
"""


@dataclass
class Requests:
    """A ChildStacks stand-in that keeps the requests it is given."""

    made: list[tuple[str, ChildRequest]] = field(default_factory=list)

    def create(
        self, *, parent_stack_id: str, resource_name: str, token: str, request: ChildRequest
    ) -> str:
        self.made.append(("create", request))
        return "child"

    def update(self, child_id: str, request: ChildRequest) -> None:
        self.made.append(("update", request))

    def delete(self, child_id: str) -> None: ...

    def cancel(self, child_id: str) -> None: ...

    def get(self, child_id: str) -> ChildStack:
        return ChildStack(child_id, "c", "CREATE", "IN_PROGRESS")

    def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
        return None

    def check(self, child_id: str, key: str) -> ChildStack:
        return ChildStack(child_id, "c", "CHECK", "IN_PROGRESS")


def _ctx(children: Requests, properties: dict[str, Any], **over: Any) -> ActionContext:
    base: dict[str, Any] = dict(
        stack_id="parent",
        resource_name="inner",
        action="CREATE",
        idempotency_token="tok",
        properties=properties,
        old_properties=None,
        physical_id=None,
        data={},
        started_at=1000.0,
        now=1000.0,
        sandbox=None,
        children=children,
    )
    base.update(over)
    return ActionContext(**base)


def test_os_heat_stack_hands_its_facade_on_create_and_update() -> None:
    children = Requests()
    plugin = HeatStackResource()
    properties = {"template": "{}", "parameters": {}}
    plugin.create(_ctx(children, properties, facade=FACADE))
    plugin.update(_ctx(children, properties, action="UPDATE", physical_id="child", facade=FACADE))
    assert [(kind, request.facade) for kind, request in children.made] == [
        ("create", FACADE),
        ("update", FACADE),
    ]


def test_a_provider_template_resource_hands_its_facade_on() -> None:
    children = Requests()
    plugin = provider_template_type("My::Box", PROVIDED, path="box.yaml")()
    plugin.create(_ctx(children, {"value": "x"}, facade=FACADE))
    [(_, request)] = children.made
    assert request.facade == FACADE and request.provider == "box.yaml"
    assert request.parameters == {"value": "x"}


def test_without_a_facade_in_the_context_the_request_has_none() -> None:
    children = Requests()
    HeatStackResource().create(_ctx(children, {"template": "{}", "parameters": {}}))
    [(_, request)] = children.made
    assert request.facade is None
