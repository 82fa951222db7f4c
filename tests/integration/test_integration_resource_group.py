"""OS::Heat::ResourceGroup with real workers: members in a child stack, scaled by count,
removed by removal_policies, updated in rolling batches, deleted with the group (issue 10)."""

from __future__ import annotations

import json
from typing import Any

from integration_support import sandbox_objects, stack_events, template
from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope


def _group(count: int, value: str = "v-%index%", **extra: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        "count": count,
        "resource_def": {"type": "OS::Heat::TestResource", "properties": {"value": value}},
    }
    spec: dict[str, Any] = {"type": "OS::Heat::ResourceGroup", "properties": props}
    for key, item in extra.items():
        if key == "update_policy":
            spec["update_policy"] = item
        else:
            props[key] = item
    return spec


def _stack(group: dict[str, Any]) -> dict[str, Any]:
    return template(
        {
            "group": group,
            "user": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"list_join": [",", {"get_attr": ["group", "output"]}]}},
            },
        },
        outputs={
            "refs": {"value": {"get_attr": ["group", "refs"]}},
            "refs_map": {"value": {"get_attr": ["group", "refs_map"]}},
            "outputs": {"value": {"get_attr": ["group", "attributes", "output"]}},
            "first": {"value": {"get_attr": ["group", "resource.1"]}},
            "first_out": {"value": {"get_attr": ["group", "resource.1.output"]}},
            "first_out_path": {"value": {"get_attr": ["group", "resource.1", "output"]}},
            "removed": {"value": {"get_attr": ["group", "removed_rsrc_list"]}},
            "group_id": {"value": {"get_resource": "group"}},
        },
    )


def _child(stack_id: str) -> Stack:
    with session_scope() as session:
        stmt = select(Stack).where(Stack.parent_stack_id == stack_id, Stack.deleted_at.is_(None))
        [child] = list(session.scalars(stmt))
        return child


def _members(child_id: str) -> dict[str, str]:
    """Member name -> its sandbox object's value (a live member's object)."""
    found = {}
    for obj in sandbox_objects(child_id):
        found[obj.properties["value"].removeprefix("v-").split("-")[0]] = obj.properties["value"]
    return found


def _outputs(client: Client, stack_id: str) -> dict[str, Any]:
    return {name: out["value"] for name, out in client.outputs(stack_id).items()}


def test_a_group_is_created_scaled_up_and_down_and_deleted(client: Client) -> None:
    stack_id = client.create("grp", _stack(_group(3)))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    assert child.parent_resource == "group"
    assert _members(child.id) == {"0": "v-0", "1": "v-1", "2": "v-2"}
    out = _outputs(client, stack_id)
    assert out["outputs"] == {"0": "v-0", "1": "v-1", "2": "v-2"}
    assert len(out["refs"]) == 3 and all(isinstance(r, str) for r in out["refs"])
    assert out["refs_map"] == dict(zip(["0", "1", "2"], out["refs"], strict=True))
    assert out["first"] == out["refs"][1]
    assert out["first_out"] == out["first_out_path"] == "v-1"
    assert out["removed"] == []
    assert out["group_id"] == child.id
    [user] = sandbox_objects(stack_id)
    assert user.properties["value"] == "v-0,v-1,v-2"

    client.update(stack_id, _stack(_group(5)))
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert _child(stack_id).id == child.id
    assert sorted(_members(child.id)) == ["0", "1", "2", "3", "4"]
    out = _outputs(client, stack_id)
    assert out["refs"][:3] == client_refs_before(out, 3)  # the first three are kept
    [user] = sandbox_objects(stack_id)
    assert user.properties["value"] == "v-0,v-1,v-2,v-3,v-4"

    client.update(stack_id, _stack(_group(2)))
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert _members(child.id) == {"0": "v-0", "1": "v-1"}  # the highest indices went
    assert _outputs(client, stack_id)["outputs"] == {"0": "v-0", "1": "v-1"}

    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    assert sandbox_objects(child.id) == []
    with session_scope() as session:
        assert session.get(Stack, child.id).deleted_at is not None  # type: ignore[union-attr]


def client_refs_before(out: dict[str, Any], n: int) -> list[Any]:
    return [out["refs_map"][str(i)] for i in range(n)]


def test_removal_policies_remove_a_named_member_for_good(client: Client) -> None:
    stack_id = client.create("rm", _stack(_group(3)))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    before = _outputs(client, stack_id)["refs_map"]

    removal = [{"resource_list": ["1"]}]
    client.update(stack_id, _stack(_group(3, removal_policies=removal)))
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    # Member 1 is gone and its name is never used again: the group fills up with 3.
    assert _members(child.id) == {"0": "v-0", "2": "v-2", "3": "v-3"}
    out = _outputs(client, stack_id)
    assert out["removed"] == ["1"]
    assert out["refs_map"]["0"] == before["0"] and out["refs_map"]["2"] == before["2"]
    assert "1" not in out["refs_map"]
    assert out["first"] is None and "no member '1'" in client.outputs(stack_id)["first"]["error"]

    # By reference, the next time: member 2's reference names it.
    removal = [{"resource_list": [out["refs_map"]["2"]]}]
    client.update(stack_id, _stack(_group(3, removal_policies=removal)))
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert _members(child.id) == {"0": "v-0", "3": "v-3", "4": "v-4"}
    assert _outputs(client, stack_id)["removed"] == ["1", "2"]


def _update_events(child_id: str) -> list[tuple[str, str]]:
    return [
        (name, status)
        for name, action, status in stack_events(child_id)
        if name and action == "UPDATE"
    ]


def test_a_rolling_update_goes_in_batches_of_two_with_a_pause(client: Client) -> None:
    policy = {"rolling_update": {"max_batch_size": 2, "pause_time": 1}}
    group = _group(5, update_policy=policy)
    stack_id = client.create("roll", _stack(group))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    objects = {o.properties["value"]: o.id for o in sandbox_objects(child.id)}

    changed = _group(5, value="w-%index%", update_policy=policy)
    client.update(stack_id, _stack(changed))
    assert client.wait(stack_id, timeout=90)["status"] == "UPDATE_COMPLETE"
    after = {o.properties["value"]: o.id for o in sandbox_objects(child.id)}
    assert sorted(after) == [f"w-{i}" for i in range(5)]
    # Updated in place, member by member.
    assert {after[f"w-{i}"] for i in range(5)} == {objects[f"v-{i}"] for i in range(5)}
    events = _update_events(child.id)
    updating: set[str] = set()
    most = 0
    order = []
    for name, status in events:
        if status == "IN_PROGRESS":
            updating.add(name)
            order.append(name)
            most = max(most, len(updating))
        else:
            updating.discard(name)
    # Never more than a batch at once (whether a batch's two overlap in time is the
    # machine's business), and one update of the child per batch, in Heat's order.
    assert most <= 2, events
    batches = [e for e in stack_events(child.id) if e == (None, "UPDATE", "IN_PROGRESS")]
    assert len(batches) == 3, batches
    # Highest indices first, as in Heat: {4, 3}, {2, 1}, {0}.
    assert [set(order[:2]), set(order[2:4]), set(order[4:])] == [{"4", "3"}, {"2", "1"}, {"0"}]
    assert _outputs(client, stack_id)["outputs"] == {str(i): f"w-{i}" for i in range(5)}
    [user] = sandbox_objects(stack_id)
    assert user.properties["value"] == "w-0,w-1,w-2,w-3,w-4"


def test_batch_create_makes_members_a_batch_at_a_time(client: Client) -> None:
    policy = {"batch_create": {"max_batch_size": 2}}
    stack_id = client.create("batched", _stack(_group(3, update_policy=policy)))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    assert _members(child.id) == {"0": "v-0", "1": "v-1", "2": "v-2"}
    states = stack_events(child.id)
    # The child was created with two members and then updated to add the third.
    assert (None, "CREATE", "COMPLETE") in states and (None, "UPDATE", "COMPLETE") in states
    created = [n for n, a, st in states if n is not None and a == "CREATE" and st == "COMPLETE"]
    assert sorted(created) == ["0", "1", "2"]


def test_member_properties_from_a_hidden_parameter_stay_masked_in_the_child(
    client: Client,
) -> None:
    secret = "hunter2-secret"
    value = {"str_replace": {"template": "pw=S-%index%", "params": {"S": {"get_param": "pw"}}}}
    group = _group(2, value=value)  # type: ignore[arg-type]
    body = template(
        {"group": group},
        parameters={"pw": {"type": "string", "hidden": True}},
        outputs={"each": {"value": {"get_attr": ["group", "output"]}}},
    )
    stack_id = client.create("secret", body, parameters={"pw": secret})["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    # The members really have the secret...
    assert sorted(o.properties["value"] for o in sandbox_objects(child.id)) == [
        f"pw={secret}-0",
        f"pw={secret}-1",
    ]
    # ...and nothing shown of the child or the parent has it.
    shown = [
        client.template(child.id),
        client.resource(child.id, "0"),
        client.resource(child.id, "1"),
        client.events(child.id),
        client.get(child.id),
        client.outputs(child.id),
        client.outputs(stack_id),
        client.resource(stack_id, "group"),
        client.template(stack_id),
        client.events(stack_id),
    ]
    for item in shown:
        assert secret not in json.dumps(item), item
    assert client.resource(child.id, "0")["properties"]["value"] == "pw=******-0"

    # An update keeps them masked (the child's new template inherits them again).
    client.update(stack_id, body, parameters={"pw": secret})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert secret not in json.dumps(client.template(child.id))


def test_a_member_attribute_read_only_after_an_update_is_read(client: Client) -> None:
    """The group itself is unchanged; only the stack now reads its members' `output`: the
    child is given the output that carries it."""
    refs_only = template(
        {"group": _group(2)}, outputs={"refs": {"value": {"get_attr": ["group", "refs"]}}}
    )
    stack_id = client.create("later", refs_only)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    objects = {o.id for o in sandbox_objects(child.id)}
    client.update(stack_id, _stack(_group(2)))
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    out = _outputs(client, stack_id)
    assert out["outputs"] == {"0": "v-0", "1": "v-1"}
    assert out["first_out"] == "v-1"
    assert {o.id for o in sandbox_objects(child.id)} == objects  # no member touched


def test_a_failed_member_fails_the_group_naming_its_child(client: Client) -> None:
    group = _group(2)
    group["properties"]["resource_def"]["properties"]["fail_on"] = ["create"]
    body = template({"group": group})
    stack_id = client.create("broken", body, disable_rollback=True)["stack_id"]
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "CREATE_FAILED"
    [row] = [r for r in client.resources(stack_id) if r["name"] == "group"]
    assert row["status"] == "CREATE_FAILED"
    assert "nested stack broken-group-" in row["status_reason"]


def test_a_failed_group_update_rolls_back_to_the_old_members(client: Client) -> None:
    stack_id = client.create("back", _stack(_group(2)))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    before = {o.id for o in sandbox_objects(child.id)}
    bad = _group(3)
    bad["properties"]["resource_def"]["properties"]["fail_on"] = ["create"]
    client.update(stack_id, _stack(bad))
    final = client.wait(stack_id, timeout=90)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    assert _child(stack_id).id == child.id
    assert _members(child.id) == {"0": "v-0", "1": "v-1"}
    assert {o.id for o in sandbox_objects(child.id)} == before
    assert _outputs(client, stack_id)["outputs"] == {"0": "v-0", "1": "v-1"}


BOX = """
heat_template_version: 2018-08-31
parameters:
  label: {type: string}
resources:
  inner:
    type: OS::Heat::TestResource
    properties: {value: {str_replace: {template: box-L, params: {L: {get_param: label}}}}}
outputs:
  shown: {value: {get_attr: [inner, output]}}
"""


def test_members_of_a_provider_template_type_from_the_environment(client: Client) -> None:
    """A member type mapped by the environment to a provider template (Heat's usual group of
    servers-with-extras): checked against the template's parameters, each member a nested
    stack of it inside the group's child, its outputs read per member."""
    group = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": 2,
            "resource_def": {"type": "My::Box", "properties": {"label": "m%index%"}},
        },
    }
    body = template(
        {"group": group}, outputs={"shown": {"value": {"get_attr": ["group", "shown"]}}}
    )
    environment = [{"resource_registry": {"My::Box": "box.yaml"}}]
    stack_id = client.create("boxes", body, environment=environment, files={"box.yaml": BOX})[
        "stack_id"
    ]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    assert _outputs(client, stack_id)["shown"] == ["box-m0", "box-m1"]
    child = _child(stack_id)
    assert {r["type"] for r in client.resources(child.id)} == {"box.yaml"}
    # A member property the provider template does not take is refused before anything runs.
    bad = json.loads(json.dumps(body))
    bad["resources"]["group"]["properties"]["resource_def"]["properties"]["colour"] = "red"
    refused = client.app.send_task(
        "conv_tasks.stack.create",
        kwargs={
            "tenant": client.tenant,
            "name": "bad-boxes",
            "template": bad,
            "environment": environment,
            "files": {"box.yaml": BOX},
        },
    ).get(timeout=30)
    assert refused["ok"] is False
    assert [p["path"] for p in refused["problems"]] == [
        "resources.group.properties.resource_def.properties.colour"
    ]
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"


def test_preview_of_an_unchanged_group_that_others_read_is_unchanged(client: Client) -> None:
    """The member attributes a stack reads are part of the group's definition; preview counts
    them as the node does, so the same template previews as unchanged."""
    body = _stack(_group(2))
    stack_id = client.create("grp-preview", body)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    actions = {r["name"]: r["action"] for r in client.preview(stack_id, body)["resources"]}
    assert actions == {"group": "unchanged", "user": "unchanged"}
    # Reading one more member attribute changes the group (its child must carry it).
    more = json.loads(json.dumps(body))
    more["outputs"]["ids"] = {"value": {"get_attr": ["group", "attributes", "id"]}}
    actions = {r["name"]: r["action"] for r in client.preview(stack_id, more)["resources"]}
    assert actions["group"] == "update"
