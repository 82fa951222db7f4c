"""Nested-stack resource types against a ChildStacks stand-in: what each step asks of the
child, how the child's state becomes the resource's, and provider-template classes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from conv_tasks.errors import ResourceFailure, TemplateError
from conv_tasks.resources import (
    ActionContext,
    ChildRequest,
    ChildStacks,
    prepare_properties,
    static_problems,
)
from conv_tasks.resources.builtin.heat_stack import HeatStackResource
from conv_tasks.resources.provider_template import STACK_ID, provider_template_type
from conv_tasks.sdk import MIN_POLL_SECS, ChildStack, child_timeout, poll_after
from conv_tasks.sdk.nested import MAX_POLL_SECS


@dataclass
class FakeChildren:
    """Children in a dict; every call recorded."""

    stacks: dict[str, ChildStack] = field(default_factory=dict)
    calls: list[tuple[str, Any]] = field(default_factory=list)

    def create(
        self, *, parent_stack_id: str, resource_name: str, token: str, request: ChildRequest
    ) -> str:
        self.calls.append(("create", request))
        child_id = f"child-of-{token}"
        self.stacks.setdefault(
            child_id, ChildStack(child_id, f"p-{resource_name}", "CREATE", "IN_PROGRESS")
        )
        return child_id

    def update(self, child_id: str, request: ChildRequest) -> None:
        self.calls.append(("update", request))
        self.stacks[child_id] = replace(
            self.stacks[child_id], action="UPDATE", status="IN_PROGRESS"
        )

    def delete(self, child_id: str) -> None:
        self.calls.append(("delete", child_id))

    def cancel(self, child_id: str) -> None:
        self.calls.append(("cancel", child_id))

    def get(self, child_id: str) -> ChildStack:
        return self.stacks[child_id]

    def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
        self.calls.append(("made_for", token))
        return None

    def template(self, child_id: str) -> dict[str, Any]:
        return {}

    def failed_resources(self, child_id: str) -> frozenset[str]:
        return self.failed

    failed: frozenset[str] = frozenset()
    checked: set[str] = field(default_factory=set)

    def check(self, child_id: str, key: str) -> ChildStack:
        """As the engine: one check per key, none while another operation runs."""
        self.calls.append(("check", key))
        child = self.stacks.get(child_id)
        if child is None:
            return ChildStack(child_id, "", "DELETE", "COMPLETE", deleted=True)
        if key not in self.checked and child.status != "IN_PROGRESS" and not child.deleted:
            self.checked.add(key)
            self.stacks[child_id] = replace(child, action="CHECK", status="IN_PROGRESS")
        return self.stacks[child_id]


def _ctx(children: ChildStacks | None, **over: Any) -> ActionContext:
    base: dict[str, Any] = dict(
        stack_id="parent",
        resource_name="inner",
        action="CREATE",
        idempotency_token="tok",
        properties={"template": "{}", "parameters": {"x": 1}},
        old_properties=None,
        physical_id=None,
        data={},
        started_at=1000.0,
        now=1000.0,
        sandbox=None,
        children=children,
        deadline=None,
    )
    base.update(over)
    return ActionContext(**base)


def test_poll_interval_grows_with_the_wait() -> None:
    assert poll_after(0) == MIN_POLL_SECS
    assert poll_after(20) == 2.0
    assert poll_after(10_000) == MAX_POLL_SECS


def test_child_timeout_is_what_is_left_of_the_parent_deadline() -> None:
    assert child_timeout(_ctx(None)) is None
    assert child_timeout(_ctx(None, deadline=1000.0 + 601)) == 11
    assert child_timeout(_ctx(None, deadline=1000.0 - 5)) == 1  # late: at least a minute
    assert child_timeout(_ctx(None, deadline=1000.0 + 3600), 5) == 5
    assert child_timeout(_ctx(None, deadline=1000.0 + 120), 5) == 2
    assert child_timeout(_ctx(None), 7) == 7


def test_create_starts_the_child_and_polls_until_it_completes() -> None:
    children = FakeChildren()
    plugin = HeatStackResource()
    started = plugin.create(_ctx(children, deadline=1000.0 + 300))
    assert not started.done and started.physical_id == "child-of-tok"
    [(kind, request)] = children.calls
    assert kind == "create" and request.parameters == {"x": 1} and request.timeout_mins == 5
    polling = _ctx(children, physical_id="child-of-tok")
    assert not plugin.check_create(polling).done
    children.stacks["child-of-tok"] = replace(
        children.stacks["child-of-tok"], status="COMPLETE", outputs={"o": 1}
    )
    done = plugin.check_create(polling)
    assert done.done and done.data == {"outputs": {"o": 1}, "stack_name": "p-inner"}
    attrs = plugin.attributes(replace(polling, data=done.data))
    assert attrs == {"o": 1, "outputs": {"o": 1}, "stack_name": "p-inner"}
    assert plugin.reference(polling) == "child-of-tok"


def test_a_failed_child_fails_the_resource_naming_it() -> None:
    children = FakeChildren(
        {"c": ChildStack("c", "p-inner-1", "UPDATE", "FAILED", reason="Resource x failed")}
    )
    with pytest.raises(ResourceFailure) as failed:
        HeatStackResource().check_update(_ctx(children, action="UPDATE", physical_id="c"))
    assert "nested stack p-inner-1 failed: Resource x failed" in str(failed.value)


def test_update_delete_and_interrupt_act_on_the_child() -> None:
    children = FakeChildren({"c": ChildStack("c", "n", "CREATE", "COMPLETE")})
    plugin = HeatStackResource()
    assert not plugin.update(_ctx(children, action="UPDATE", physical_id="c")).done
    assert children.stacks["c"].state == "UPDATE_IN_PROGRESS"
    plugin.interrupt(_ctx(children, action="UPDATE", physical_id="c"))
    assert not plugin.delete(_ctx(children, action="DELETE", physical_id="c")).done
    plugin.interrupt(_ctx(children, action="DELETE", physical_id="c"))  # a delete: no cancel
    assert [k for k, _ in children.calls] == ["update", "cancel", "delete"]
    children.stacks["c"] = ChildStack("c", "n", "DELETE", "COMPLETE", deleted=True)
    assert plugin.check_delete(_ctx(children, action="DELETE", physical_id="c")).done
    assert plugin.delete(_ctx(children, action="DELETE")).done  # never made: nothing to do
    assert children.calls[-1] == ("made_for", "tok")


def test_a_delete_without_a_physical_id_finds_the_child_its_create_token_made() -> None:
    class Made(FakeChildren):
        def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
            super().made_for(parent_stack_id=parent_stack_id, token=token)
            return "c" if token == "parent:7:CREATE" else None

    children = Made({"c": ChildStack("c", "n", "CREATE", "IN_PROGRESS")})
    left = _ctx(children, action="DELETE", idempotency_token="parent:7:DELETE")
    progress = HeatStackResource().delete(replace(left, create_token="parent:7:CREATE"))
    # The child is deleted, and its id kept for the polls that wait for it.
    assert not progress.done and progress.physical_id == "c"
    assert children.calls == [("made_for", "parent:7:CREATE"), ("delete", "c")]


def test_without_the_service_the_action_fails_clearly() -> None:
    with pytest.raises(ResourceFailure, match="no nested-stack service"):
        HeatStackResource().create(_ctx(None))


def test_a_region_is_refused_by_name() -> None:
    props = {"template": "{}", "context": {"region_name": "RegionTwo"}}
    problems = static_problems(HeatStackResource, props, path="resources.inner.properties")
    [problem] = problems
    assert problem.path == "resources.inner.properties.context.region_name"
    assert "region" in problem.message and "RegionTwo" in problem.message
    prepared = prepare_properties(
        HeatStackResource, {"template": "{}", "context": {}}, path="resources.inner.properties"
    )
    assert prepared["parameters"] == {}


PROVIDER = json.dumps(
    {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "size": {"type": "number", "description": "How big."},
            "name": {"type": "string", "default": "n"},
            "tags": {"type": "comma_delimited_list", "default": "a,b"},
            "opts": {"type": "json", "default": {}},
            "on": {"type": "boolean", "default": False},
        },
        "resources": {},
        "outputs": {"first": {"value": 1, "description": "The first."}},
    }
)


def test_a_provider_type_takes_its_schema_from_the_template() -> None:
    cls = provider_template_type("My::Thing", PROVIDER, path="thing.yaml")
    assert cls.type_name == "My::Thing"
    schema = cls.properties_schema
    assert schema is not None
    assert {n: p.type for n, p in schema.items()} == {
        "size": "number",
        "name": "string",
        "tags": "list",
        "opts": "map",
        "on": "boolean",
    }
    assert schema["size"].required and schema["size"].description == "How big."
    # A parameter with a default is optional, and its default stays the child's: a property
    # not given is not passed, so parameter_defaults can apply in the child (as in Heat).
    assert not schema["name"].required and schema["name"].default is None
    assert not schema["tags"].required and schema["tags"].default is None
    assert all(p.update_allowed for p in schema.values())
    assert set(cls.attributes_schema) == {"first", STACK_ID}
    problems = static_problems(cls, {}, path="resources.t.properties")
    assert [p.path for p in problems] == ["resources.t.properties.size"]


def test_a_provider_resource_passes_its_properties_and_reads_its_outputs() -> None:
    cls = provider_template_type("My::Thing", PROVIDER)
    plugin = cls()
    children = FakeChildren()
    ctx = _ctx(children, properties={"size": 2, "name": "n", "opts": None})
    plugin.create(ctx)
    [(_, request)] = children.calls
    assert request.template == PROVIDER and request.parameters == {"size": 2, "name": "n"}
    done = replace(ctx, physical_id="child-1", data={"outputs": {"first": 1}})
    assert plugin.attributes(done) == {"first": 1, STACK_ID: "child-1"}
    assert plugin.reference(done) == "child-1"
    own_id = replace(done, data={"outputs": {STACK_ID: "server-9"}})
    assert plugin.reference(own_id) == "server-9"


def test_a_broken_provider_template_is_refused_naming_it() -> None:
    with pytest.raises(TemplateError) as refused:
        provider_template_type(
            "My::Broken", "heat_template_version: 2018-08-31\nbogus: 1\n", path="broken.yaml"
        )
    assert "broken.yaml" in str(refused.value) and "bogus" in str(refused.value)


# ---------------------------------------------------------------------- check


def _checking(children: FakeChildren, **over: Any) -> ActionContext:
    return _ctx(children, action="CHECK", physical_id="c", idempotency_token="check-1", **over)


def _child(action: str = "CREATE", status: str = "COMPLETE", **over: Any) -> FakeChildren:
    return FakeChildren({"c": ChildStack("c", "p-inner-1", action, status, **over)})


def test_check_starts_the_childs_check_once_and_polls_it() -> None:
    children = _child()
    plugin = HeatStackResource()
    first = plugin.check(_checking(children))
    assert not first.done and first.poll_after == MIN_POLL_SECS
    again = plugin.check(_checking(children, now=1000.0 + 30))  # the same step, asked again
    assert not again.done and again.poll_after == 3.0  # slower as the wait grows
    assert children.checked == {"check-1"}  # one check of the child for this key
    assert [call for call in children.calls] == [("check", "check-1"), ("check", "check-1")]
    children.stacks["c"] = replace(children.stacks["c"], status="COMPLETE")
    assert plugin.check(_checking(children)).done


def test_a_check_failed_child_fails_the_check_naming_its_failed_resources() -> None:
    children = _child("CHECK", "FAILED", reason="a: Resource a: sandbox object x does not exist.")
    children.checked.add("check-1")
    children.failed = frozenset({"b", "a"})
    with pytest.raises(ResourceFailure) as failed:
        HeatStackResource().check(_checking(children))
    text = str(failed.value)
    assert text.startswith("Resource inner: nested stack p-inner-1 is CHECK_FAILED")
    assert "(resources: a, b)" in text and "sandbox object x does not exist" in text


def test_a_check_of_a_missing_or_busy_or_never_created_child_fails() -> None:
    gone = FakeChildren()
    with pytest.raises(ResourceFailure, match="nested stack c is gone"):
        HeatStackResource().check(_checking(gone))
    deleted = _child(deleted=True)
    with pytest.raises(ResourceFailure, match="nested stack p-inner-1 is gone"):
        HeatStackResource().check(_checking(deleted))
    busy = _child("UPDATE", "IN_PROGRESS")
    with pytest.raises(ResourceFailure, match="p-inner-1 is UPDATE_IN_PROGRESS: not checked"):
        HeatStackResource().check(_checking(busy))
    with pytest.raises(ResourceFailure, match="the nested stack was never created"):
        HeatStackResource().check(_ctx(FakeChildren(), action="CHECK"))


def test_a_provider_template_resource_checks_its_child_too() -> None:
    cls = provider_template_type("My::Thing", json.dumps({"heat_template_version": "2018-08-31"}))
    children = _child()
    assert not cls().check(_checking(children, properties={})).done
    assert children.stacks["c"].state == "CHECK_IN_PROGRESS"


# ------------------------------------------------- resource.NAME (issue 25, item 3)

BOXED = """heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::TestResource, properties: {value: x}}
outputs:
  out: {value: {get_attr: [a, output]}}
"""


def test_a_provider_type_offers_its_child_resources_by_name() -> None:
    cls = provider_template_type("My::Box", BOXED, path="box.yaml")
    assert cls.has_attribute("out") and cls.has_attribute(STACK_ID)
    assert cls.has_attribute("resource.a") and cls.has_attribute("resource.a.output")
    assert not cls.has_attribute("nothing")
    assert cls.reference_problem("resource.a", ["output"]) is None
    assert cls.reference_problem("resource.b", []) == (
        "the provider template box.yaml has no resource 'b'; its resources: a"
    )
    # The names read are part of the definition: reading another changes the child.
    assert cls.references_in_definition([("out", ())]) is None
    assert cls.references_in_definition([("resource.a", ("output",)), ("resource.a", ())]) == [
        "resource.a",
        "resource.a.output",
    ]


def test_the_child_of_a_provider_resource_carries_the_outputs_its_parent_reads() -> None:
    plugin = provider_template_type("My::Box", BOXED, path="box.yaml")()
    children = FakeChildren()
    # Nothing read: the template goes as written.
    plugin.create(_ctx(children, properties={}))
    read = (("resource.a", ()), ("resource.a", ("output",)), ("out", ()))
    plugin.create(_ctx(children, properties={}, attribute_references=read))
    [(_, plain), (_, request)] = children.calls
    assert plain.template == BOXED
    assert isinstance(request.template, dict)
    assert request.template["outputs"] == {
        "out": {"value": {"get_attr": ["a", "output"]}},
        "resource.a": {"value": {"get_resource": "a"}},
        "resource.a.output": {"value": {"get_attr": ["a", "output"]}},
    }
    assert request.template["resources"] == {
        "a": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}}
    }
    # Read back as outputs of the child.
    outputs = {"out": "x", "resource.a": "a-id", "resource.a.output": "x"}
    done = replace(_ctx(children), physical_id="child-1", data={"outputs": outputs})
    assert plugin.attributes(done) == {**outputs, STACK_ID: "child-1"}
