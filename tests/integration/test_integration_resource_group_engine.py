"""ResourceGroup in-process with every node delivered twice, in shuffled order: one child
stack, each member created once, a rolling update and a delete that converge all the same;
and a create step run twice (a worker killed before recording its child) finds one child."""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

from integration_support import (
    create_stack,
    delete_stack,
    sandbox_objects,
    stack_events,
    template,
    update_stack,
)
from test_integration_nested_engine import (
    DuplicatingDispatcher,
    _children,
    parent_step,
)

from conv_tasks.engine import default_env
from conv_tasks.resources import ActionContext
from conv_tasks.resources.builtin.group.resource import ResourceGroup


def _parent(value: str) -> dict[str, Any]:
    group = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": 3,
            "resource_def": {"type": "OS::Heat::TestResource", "properties": {"value": value}},
        },
        "update_policy": {"rolling_update": {"max_batch_size": 2}},
    }
    user = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"list_join": ["+", {"get_attr": ["group", "output"]}]}},
    }
    return template({"group": group, "user": user})


def test_duplicated_deliveries_make_each_member_once(
    database_url: str, redis_client: object
) -> None:
    dispatcher = DuplicatingDispatcher()
    env = default_env(dispatcher)
    rng = random.Random(11)
    tenant = f"grp-dup-{uuid.uuid4().hex[:6]}"
    stack_id = create_stack(
        env, tenant=tenant, name="dup", template=_parent("a%index%"), parameters={}
    )
    dispatcher.drain(env, rng)
    events = stack_events(stack_id)
    assert events[-1] == (None, "CREATE", "COMPLETE"), events
    assert events.count(("group", "CREATE", "COMPLETE")) == 1
    [child] = _children(stack_id)
    objects = sandbox_objects(child.id)
    assert sorted(o.properties["value"] for o in objects) == ["a0", "a1", "a2"]
    assert all(o.create_calls == 1 for o in objects)
    assert [o.properties["value"] for o in sandbox_objects(stack_id)] == ["a0+a1+a2"]

    update_stack(
        env, tenant=tenant, stack_ref=stack_id, template=_parent("b%index%"), parameters={}
    )
    dispatcher.drain(env, rng)
    assert stack_events(stack_id)[-1] == (None, "UPDATE", "COMPLETE")
    after = sandbox_objects(child.id)
    assert sorted(o.properties["value"] for o in after) == ["b0", "b1", "b2"]
    assert {o.id for o in after} == {o.id for o in objects}  # in place, none made twice
    assert [o.properties["value"] for o in sandbox_objects(stack_id)] == ["b0+b1+b2"]

    delete_stack(env, tenant=tenant, stack_ref=stack_id)
    dispatcher.drain(env, rng)
    assert stack_events(stack_id)[-1] == (None, "DELETE", "COMPLETE")
    assert [c.deleted_at is not None for c in _children(stack_id)] == [True]
    assert sandbox_objects(child.id) == []


def test_a_group_create_step_run_twice_makes_one_child(
    database_url: str, redis_client: object
) -> None:
    env, dispatcher, ctx = parent_step(
        "grp-twice",
        "group",
        1,
        {
            "count": 2,
            "index_var": "%index%",
            "resource_def": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "m%index%"},
                "metadata": None,
            },
            "removal_policies": [],
            "removal_policies_mode": "append",
        },
        attribute_references=(("output", ()),),
    )
    parent_id = ctx.stack_id
    plugin = ResourceGroup()
    first = plugin.create(ctx)
    second = plugin.create(ctx)
    assert first.physical_id == second.physical_id and not first.done
    assert first.data == second.data
    [child] = _children(parent_id)
    dispatcher.drain(env, random.Random(2))
    polled = ActionContext(
        **{**ctx.__dict__, "physical_id": first.physical_id, "data": first.data, "now": time.time()}
    )
    done = plugin.check_create(polled)
    assert done.done
    members = done.data["members"]
    assert {name: m["attributes"]["output"] for name, m in members.items()} == {
        "0": "m0",
        "1": "m1",
    }
    assert sorted(o.properties["value"] for o in sandbox_objects(child.id)) == ["m0", "m1"]
