"""Stack check reaches nested stacks and groups, with real workers (issue 10): a nested
resource's check checks its child stack, and the child's failure is the resource's."""

from __future__ import annotations

import json
import time
from typing import Any

from integration_support import sandbox_objects, template, test_resource
from sqlalchemy import select, update

from conv_tasks.client import Client
from conv_tasks.db.models import SandboxObject, Stack
from conv_tasks.db.session import session_scope


def _parent() -> dict[str, Any]:
    child = template({"a": test_resource("in-child"), "b": test_resource("also")})
    group_def = {"type": "OS::Heat::TestResource", "properties": {"value": "m-%index%"}}
    return template(
        {
            "inner": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}},
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {"count": 2, "resource_def": group_def},
            },
            "plain": test_resource("top"),
        }
    )


def _children(stack_id: str) -> dict[str, Stack]:
    """parent resource name -> its live child stack."""
    with session_scope() as session:
        stmt = select(Stack).where(Stack.parent_stack_id == stack_id, Stack.deleted_at.is_(None))
        return {str(child.parent_resource): child for child in session.scalars(stmt)}


def _remove_behind_the_engines_back(object_id: str) -> None:
    with session_scope() as session:
        session.execute(
            update(SandboxObject).where(SandboxObject.id == object_id).values(deleted=True)
        )


def _statuses(client: Client, stack_id: str) -> dict[str, str]:
    return {r["name"]: r["status"] for r in client.resources(stack_id)}


def _created(client: Client, name: str) -> str:
    stack_id = str(client.create(name, _parent())["stack_id"])
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    return stack_id


def test_check_of_a_healthy_parent_checks_its_nested_stack_and_group(client: Client) -> None:
    stack_id = _created(client, "checked")
    children = _children(stack_id)
    assert set(children) == {"inner", "group"}

    client.check(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "CHECK_COMPLETE"
    assert _statuses(client, stack_id) == dict.fromkeys(
        ("inner", "group", "plain"), "CHECK_COMPLETE"
    )
    for child in children.values():
        # Each child was checked, once, by its own traversal; no parent guard refused it.
        assert client.get(child.id)["status"] == "CHECK_COMPLETE"
        assert set(_statuses(client, child.id).values()) == {"CHECK_COMPLETE"}
        starts = [
            e
            for e in client.events(child.id)
            if e["resource_name"] is None and e["status"] == "CHECK_IN_PROGRESS"
        ]
        assert len(starts) == 1, starts

    # A second check of the parent checks the children again.
    client.check(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "CHECK_COMPLETE"
    for child in children.values():
        starts = [
            e
            for e in client.events(child.id)
            if e["resource_name"] is None and e["status"] == "CHECK_IN_PROGRESS"
        ]
        assert len(starts) == 2


def test_a_broken_child_fails_the_parent_check_and_an_update_replaces_it(client: Client) -> None:
    stack_id = _created(client, "sickparent")
    children = _children(stack_id)
    inner, group = children["inner"], children["group"]
    [broken] = [o for o in sandbox_objects(inner.id) if o.properties["value"] == "in-child"]
    [member] = [o for o in sandbox_objects(group.id) if o.properties["value"] == "m-1"]
    _remove_behind_the_engines_back(broken.id)
    _remove_behind_the_engines_back(member.id)

    client.check(stack_id)
    done = client.wait(stack_id, timeout=60)
    assert done["status"] == "CHECK_FAILED", done
    reason = done["status_reason"]
    assert "inner: Resource inner: nested stack" in reason, reason
    assert "CHECK_FAILED (resources: a)" in reason, reason
    assert "group: Resource group: nested stack" in reason, reason
    assert "CHECK_FAILED (resources: 1)" in reason, reason
    assert "plain:" not in reason
    assert _statuses(client, stack_id) == {
        "inner": "CHECK_FAILED",
        "group": "CHECK_FAILED",
        "plain": "CHECK_COMPLETE",
    }
    assert client.get(inner.id)["status"] == "CHECK_FAILED"
    assert _statuses(client, inner.id) == {"a": "CHECK_FAILED", "b": "CHECK_COMPLETE"}

    # As Heat: the nested resources are updated in place, and each child's update replaces
    # just its own CHECK_FAILED resource.
    preview = {e["name"]: e for e in client.preview(stack_id, _parent())["resources"]}
    assert preview["inner"]["action"] == "update", preview["inner"]
    assert preview["group"]["action"] == "update", preview["group"]
    before = {
        c.id: {o.properties["value"]: o.id for o in sandbox_objects(c.id)}
        for c in children.values()
    }
    client.update(stack_id, _parent())
    assert client.wait(stack_id, timeout=90)["status"] == "UPDATE_COMPLETE"
    assert {n: c.id for n, c in _children(stack_id).items()} == {
        n: c.id for n, c in children.items()
    }
    after = {
        c.id: {o.properties["value"]: o.id for o in sandbox_objects(c.id)}
        for c in children.values()
    }
    assert after[inner.id]["in-child"] != broken.id  # replaced
    assert after[inner.id]["also"] == before[inner.id]["also"]  # left alone
    assert after[group.id]["m-1"] != member.id
    assert after[group.id]["m-0"] == before[group.id]["m-0"]
    client.check(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "CHECK_COMPLETE"


def test_a_nested_resource_marked_unhealthy_is_replaced_whole(client: Client) -> None:
    stack_id = _created(client, "markednested")
    inner = _children(stack_id)["inner"]
    client.mark_unhealthy(stack_id, "inner", "suspect")
    [entry] = [e for e in client.preview(stack_id, _parent())["resources"] if e["name"] == "inner"]
    assert entry["action"] == "replace"
    client.update(stack_id, _parent())
    assert client.wait(stack_id, timeout=90)["status"] == "UPDATE_COMPLETE"
    assert _children(stack_id)["inner"].id != inner.id


def test_a_child_deleted_behind_the_engines_back_fails_the_check(client: Client) -> None:
    stack_id = _created(client, "orphaned")
    inner = _children(stack_id)["inner"]
    with session_scope() as session:
        session.execute(
            update(Stack).where(Stack.id == inner.id).values(deleted_at=Stack.created_at)
        )
    client.check(stack_id)
    done = client.wait(stack_id, timeout=60)
    assert done["status"] == "CHECK_FAILED"
    assert "inner: Resource inner: nested stack" in done["status_reason"]
    assert "is gone" in done["status_reason"]


# ------------------------------------------------- secret attributes handed to children


def test_a_handle_token_handed_to_a_nested_stack_and_a_group_stays_masked(
    client: Client,
) -> None:
    child = template(
        {"host": test_resource({"get_param": "token"})},
        parameters={"token": {"type": "string"}},  # not hidden in the child's own template
        outputs={"token": {"value": {"get_param": "token"}}},
    )
    member = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_attr": ["handle", "token"]}},
    }
    body = template(
        {
            "handle": {"type": "OS::Heat::WaitConditionHandle"},
            "inner": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "template": json.dumps(child),
                    "parameters": {"token": {"get_attr": ["handle", "token"]}},
                },
            },
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {"count": 1, "resource_def": member},
            },
        }
    )
    stack_id = client.create("tokens", body)["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    children = _children(stack_id)
    [host] = sandbox_objects(children["inner"].id)
    token = host.properties["value"]
    assert isinstance(token, str) and len(token) > 20  # the children really got it...
    assert [o.properties["value"] for o in sandbox_objects(children["group"].id)] == [token]

    def shown() -> list[Any]:
        items: list[Any] = [client.events(stack_id), client.template(stack_id)]
        for kid in _children(stack_id).values():
            items += [
                client.get(kid.id),
                client.template(kid.id),
                client.events(kid.id),
                client.outputs(kid.id),
                client.resources(kid.id),
            ]
            items += [client.resource(kid.id, r["name"]) for r in client.resources(kid.id)]
        return items

    for item in shown():  # ...and nothing shown of them has it
        assert token not in json.dumps(item), item
    assert client.outputs(children["inner"].id)["token"]["value"] == "******"

    # A check and an update (the children's new templates inherit it again) keep it masked.
    client.check(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "CHECK_COMPLETE"
    client.update(stack_id, body)
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"
    for item in shown():
        assert token not in json.dumps(item), item


# ------------------------------------------------------- a check that is superseded


def _slow_parent(value: str) -> dict[str, Any]:
    slow = test_resource(value, action_wait_secs={"check": 4})
    child = template({"a": slow})
    return template(
        {"inner": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}}}
    )


def _wait_for_state(client: Client, stack_id: str, state: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.get(stack_id)["status"] == state:
            return
        time.sleep(0.1)
    raise AssertionError(f"stack {stack_id} never was {state}: {client.get(stack_id)}")


def test_an_update_during_the_parent_check_takes_the_child_over(client: Client) -> None:
    stack_id = str(client.create("slowcheck", _slow_parent("one"))["stack_id"])
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    inner = _children(stack_id)["inner"]
    client.check(stack_id)
    _wait_for_state(client, inner.id, "CHECK_IN_PROGRESS")

    client.update(stack_id, _slow_parent("two"))
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"
    # The child's update superseded its check: nothing of the check runs on.
    assert client.get(inner.id)["status"] == "UPDATE_COMPLETE"
    [obj] = sandbox_objects(inner.id)
    assert obj.properties["value"] == "two"
    time.sleep(5)  # past the check's wait: a check left running would have ended it
    assert client.get(inner.id)["status"] == "UPDATE_COMPLETE"
    assert client.get(stack_id)["status"] == "UPDATE_COMPLETE"


def test_an_update_that_leaves_the_child_alone_lets_its_check_end(client: Client) -> None:
    body = template({**_slow_parent("one")["resources"], "other": test_resource("x")})
    stack_id = str(client.create("slowcheck2", body)["stack_id"])
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    inner = _children(stack_id)["inner"]
    client.check(stack_id)
    _wait_for_state(client, inner.id, "CHECK_IN_PROGRESS")

    changed = template({**_slow_parent("one")["resources"], "other": test_resource("y")})
    client.update(stack_id, changed)
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"
    # The child's check was the parent's no more, yet it ends by itself.
    assert client.wait(inner.id, timeout=30)["status"] == "CHECK_COMPLETE"
    assert client.get(stack_id)["status"] == "UPDATE_COMPLETE"


def test_a_provider_template_resource_is_checked_through_its_child(client: Client) -> None:
    provider = json.dumps(
        template({"thing": test_resource("made")}, parameters={"x": {"type": "string"}})
    )
    body = template({"p": {"type": "My::Thing", "properties": {"x": "1"}}})
    environment = [{"resource_registry": {"My::Thing": "thing.yaml"}}]
    stack_id = client.create(
        "provided", body, environment=environment, files={"thing.yaml": provider}
    )["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    child = _children(stack_id)["p"]
    client.check(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "CHECK_COMPLETE"
    assert client.get(child.id)["status"] == "CHECK_COMPLETE"

    [thing] = sandbox_objects(child.id)
    _remove_behind_the_engines_back(thing.id)
    client.check(stack_id)
    done = client.wait(stack_id, timeout=60)
    assert done["status"] == "CHECK_FAILED"
    assert "p: Resource p: nested stack" in done["status_reason"]
    assert "(resources: thing)" in done["status_reason"]
