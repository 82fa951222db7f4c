"""The ResourceGroup plugin against a ChildStacks stand-in: which child template each step
sends, the pause between batches, the data kept between polls, and the group's failures."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from conv_tasks.errors import ResourceFailure
from conv_tasks.resources import ActionContext, ChildRequest, prepare_properties
from conv_tasks.resources.builtin.group.resource import ResourceGroup
from conv_tasks.sdk import ChildStack
from conv_tasks.template.member_view import MEMBER_VIEW, read_member_view


@dataclass
class Children:
    """One child stack kept in memory: its template, state and outputs."""

    stack: ChildStack | None = None
    templates: list[dict[str, Any]] = field(default_factory=list)
    failed: frozenset[str] = frozenset()

    def create(
        self, *, parent_stack_id: str, resource_name: str, token: str, request: ChildRequest
    ) -> str:
        if self.stack is None:
            self.stack = ChildStack("child", "p-group-1", "CREATE", "IN_PROGRESS")
            self.templates.append(dict(request.template))  # type: ignore[arg-type]
        return "child"

    def update(self, child_id: str, request: ChildRequest) -> None:
        assert self.stack is not None
        self.stack = replace(self.stack, action="UPDATE", status="IN_PROGRESS")
        self.templates.append(dict(request.template))  # type: ignore[arg-type]

    def delete(self, child_id: str) -> None: ...

    def cancel(self, child_id: str) -> None: ...

    def get(self, child_id: str) -> ChildStack:
        assert self.stack is not None
        return self.stack

    def template(self, child_id: str) -> dict[str, Any]:
        return self.templates[-1]

    def failed_resources(self, child_id: str) -> frozenset[str]:
        return self.failed

    def made_for(self, *, parent_stack_id: str, token: str) -> str | None:
        return None

    def check(self, child_id: str, key: str) -> ChildStack:
        assert self.stack is not None
        if self.stack.action != "CHECK":
            self.stack = replace(self.stack, action="CHECK", status="IN_PROGRESS")
        return self.stack

    def complete(self) -> None:
        """The child finished its operation; outputs as the generated template asks."""
        assert self.stack is not None
        resources = self.templates[-1]["resources"]
        outputs: dict[str, Any] = {"refs_map": {n: f"ref-{n}" for n in resources}}
        for name in self.templates[-1]["outputs"]:
            if name.startswith("member_attribute."):
                outputs[name] = {n: r["properties"]["value"] for n, r in resources.items()}
        self.stack = replace(self.stack, status="COMPLETE", outputs=outputs)

    def members(self) -> dict[str, str]:
        resources = self.templates[-1]["resources"]
        return {n: r["properties"]["value"] for n, r in resources.items()}


def _properties(count: int, value: str = "v%index%", **extra: Any) -> dict[str, Any]:
    values = {
        "count": count,
        "resource_def": {"type": "OS::Heat::TestResource", "properties": {"value": value}},
        **extra,
    }
    return prepare_properties(ResourceGroup, values, path="resources.group.properties")


def _ctx(children: Children, **over: Any) -> ActionContext:
    base: dict[str, Any] = dict(
        stack_id="parent",
        resource_name="group",
        action="CREATE",
        idempotency_token="tok",
        properties=_properties(3),
        old_properties=None,
        physical_id=None,
        data={},
        started_at=1000.0,
        now=1000.0,
        sandbox=None,
        children=children,
        deadline=1000.0 + 600,
        attribute_references=(("output", ()),),
    )
    base.update(over)
    return ActionContext(**base)


def _run(plugin: ResourceGroup, children: Children, ctx: ActionContext) -> tuple[Any, list[float]]:
    """Poll until done, completing the child whenever it runs; the waits asked for."""
    waits = []
    progress = plugin.create(ctx) if ctx.action == "CREATE" else plugin.update(ctx)
    physical_id = progress.physical_id or ctx.physical_id
    data = {**ctx.data, **progress.data}
    now = ctx.now
    for _ in range(50):
        if progress.done:
            return data, waits
        if children.get("child").status == "IN_PROGRESS":
            children.complete()
        now += progress.poll_after
        step = replace(ctx, physical_id=physical_id, data=data, now=now)
        check = plugin.check_create if ctx.action == "CREATE" else plugin.check_update
        before = len(children.templates)
        progress = check(step)
        data = {**data, **progress.data}
        if not progress.done and len(children.templates) == before:
            waits.append(progress.poll_after)
    raise AssertionError("the group never finished")


def test_create_without_a_policy_is_one_child_create() -> None:
    children, plugin = Children(), ResourceGroup()
    data, waits = _run(plugin, children, _ctx(children))
    assert waits == []
    assert len(children.templates) == 1 and children.members() == {"0": "v0", "1": "v1", "2": "v2"}
    assert list(children.templates[0]["outputs"]) == ["refs_map", "member_attribute.output"]
    assert data["members"]["1"] == {"ref": "ref-1", "attributes": {"output": "v1"}}
    assert data["skiplist"] == [] and data["refs"] == {"0": "ref-0", "1": "ref-1", "2": "ref-2"}
    view = plugin.attributes(_ctx(children, physical_id="child", data=data))[MEMBER_VIEW]
    assert read_member_view(view, "output", []) == ["v0", "v1", "v2"]
    assert read_member_view(view, "resource.2", []) == "ref-2"


def test_batch_create_sends_one_batch_at_a_time_with_pauses() -> None:
    children, plugin = Children(), ResourceGroup()
    policy = {"batch_create": {"max_batch_size": 2, "pause_time": 30}}
    ctx = _ctx(children, properties=_properties(5), update_policy=policy)
    _, waits = _run(plugin, children, ctx)
    sizes = [len(t["resources"]) for t in children.templates]
    assert sizes == [2, 4, 5]
    # Between two batches the group waits out the pause, polling rather than sleeping.
    assert [w for w in waits if w >= 1] == [30.0, 30.0]


def test_a_rolling_update_changes_the_highest_members_first() -> None:
    children, plugin = Children(), ResourceGroup()
    data, _ = _run(plugin, children, _ctx(children, properties=_properties(4)))
    policy = {"rolling_update": {"max_batch_size": 2}}
    update = _ctx(
        children,
        action="UPDATE",
        physical_id="child",
        data=data,
        properties=_properties(4, "w%index%"),
        old_properties=_properties(4),
        update_policy=policy,
    )
    _run(plugin, children, update)
    members = [t["resources"] for t in children.templates[1:]]
    values = [{n: r["properties"]["value"] for n, r in m.items()} for m in members]
    assert values == [
        {"0": "v0", "1": "v1", "2": "w2", "3": "w3"},
        {"0": "w0", "1": "w1", "2": "w2", "3": "w3"},
    ]


def test_a_resize_and_a_removal_are_one_batch_and_names_are_not_reused() -> None:
    children, plugin = Children(), ResourceGroup()
    data, _ = _run(plugin, children, _ctx(children))
    removal = [{"resource_list": ["ref-1"]}]  # by reference
    update = _ctx(
        children,
        action="UPDATE",
        physical_id="child",
        data=data,
        properties=_properties(3, removal_policies=removal),
        old_properties=_properties(3),
    )
    data, _ = _run(plugin, children, update)
    assert len(children.templates) == 2
    assert children.members() == {"0": "v0", "2": "v2", "3": "v3"}
    assert data["skiplist"] == ["1"]


def test_a_definition_change_no_member_shows_still_converges() -> None:
    children, plugin = Children(), ResourceGroup()
    data, _ = _run(plugin, children, _ctx(children))
    changed = _properties(3)
    changed["resource_def"] = {**changed["resource_def"], "metadata": None}
    changed["resource_def"]["properties"] = {"value": "v%index%", "fail": None}
    update = _ctx(
        children,
        action="UPDATE",
        physical_id="child",
        data=data,
        properties=changed,
        old_properties=_properties(3),
        update_policy={"rolling_update": {"max_batch_size": 1}},
    )
    data, _ = _run(plugin, children, update)
    assert children.members() == {"0": "v0", "1": "v1", "2": "v2"}


def test_pauses_that_fill_the_time_fail_the_group_naming_pause_time() -> None:
    children, plugin = Children(), ResourceGroup()
    policy = {"batch_create": {"max_batch_size": 1, "pause_time": 400}}
    with pytest.raises(ResourceFailure) as caught:
        plugin.create(_ctx(children, update_policy=policy))
    assert "resources.group.update_policy.batch_create.pause_time" in str(caught.value)
    assert children.stack is None  # nothing was created


def test_a_failed_child_fails_the_group() -> None:
    children, plugin = Children(), ResourceGroup()
    progress = plugin.create(_ctx(children))
    assert children.stack is not None
    children.stack = replace(children.stack, status="FAILED", reason="member 1 broke")
    with pytest.raises(ResourceFailure, match="nested stack p-group-1 failed: member 1 broke"):
        plugin.check_create(_ctx(children, physical_id="child", data=progress.data))


def test_a_group_check_checks_its_child() -> None:
    children = Children()
    plugin = ResourceGroup()
    plugin.create(_ctx(children, properties=_properties(1)))
    ctx = _ctx(children, action="CHECK", physical_id="child", properties=_properties(1))
    assert not plugin.check(ctx).done
    assert children.stack is not None and children.stack.state == "CHECK_IN_PROGRESS"
    children.stack = replace(children.stack, status="FAILED", reason="0: gone")
    children.failed = frozenset({"0"})
    with pytest.raises(ResourceFailure, match=r"CHECK_FAILED \(resources: 0\): 0: gone"):
        plugin.check(ctx)


def test_a_preview_request_is_the_child_once_every_batch_is_applied_and_starts_nothing() -> None:
    children, plugin = Children(), ResourceGroup()
    data, _ = _run(plugin, children, _ctx(children, properties=_properties(4)))
    removal = [{"resource_list": ["ref-1"]}]
    update = _ctx(
        children,
        action="UPDATE",
        physical_id="child",
        data=data,
        properties=_properties(4, "w%index%", removal_policies=removal),
        old_properties=_properties(4),
        update_policy={"rolling_update": {"max_batch_size": 1}},
    )
    sent = len(children.templates)

    request = plugin.preview_request(update)

    members = request.template["resources"]  # type: ignore[index]
    assert {n: r["properties"]["value"] for n, r in members.items()} == {
        "0": "w0",
        "2": "w2",
        "3": "w3",
        "4": "w4",
    }
    assert len(children.templates) == sent  # nothing was sent to the child
    assert children.get("child").status == "COMPLETE"
    # The update itself ends with the same members, batch by batch.
    _run(plugin, children, update)
    assert children.members() == {"0": "w0", "2": "w2", "3": "w3", "4": "w4"}
