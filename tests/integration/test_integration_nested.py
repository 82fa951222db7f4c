"""Nested stacks (OS::Heat::Stack) with real workers: a child is a real stack, and its parent
resource completes, fails, updates, rolls back and is deleted with it (issue 10)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from integration_support import sandbox_objects, template, test_resource
from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import Stack
from conv_tasks.db.session import session_scope
from conv_tasks.errors import ConvTasksError, InvalidInput


def _child_template(resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> Any:
    return template(resources, **({"outputs": outputs} if outputs else {}))


def _nested(child: dict[str, Any], **props: Any) -> dict[str, Any]:
    # As a string: functions in a mapping would be evaluated in the parent (as in Heat).
    return {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child), **props}}


def children_of(stack_id: str, *, include_deleted: bool = False) -> list[Stack]:
    with session_scope() as session:
        stmt = select(Stack).where(Stack.parent_stack_id == stack_id)
        if not include_deleted:
            stmt = stmt.where(Stack.deleted_at.is_(None))
        return list(session.scalars(stmt))


def _child_v1(value: str) -> dict[str, Any]:
    return _child_template(
        {"a": test_resource(value)},
        outputs={"a_out": {"value": {"get_attr": ["a", "output"]}}},
    )


def _parent(child: dict[str, Any], **props: Any) -> dict[str, Any]:
    return template(
        {
            "inner": _nested(child, **props),
            "user": test_resource({"get_attr": ["inner", "outputs", "a_out"]}),
        },
        outputs={
            "child_out": {"value": {"get_attr": ["inner", "outputs", "a_out"]}},
            "child_name": {"value": {"get_attr": ["inner", "stack_name"]}},
            "child_id": {"value": {"get_resource": "inner"}},
        },
    )


def test_create_a_nested_stack_and_read_its_outputs(client: Client) -> None:
    stack_id = client.create("outer", _parent(_child_v1("hello")))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    assert child.status == "COMPLETE" and child.action == "CREATE"
    assert child.parent_resource == "inner" and child.nested_depth == 1
    assert child.disable_rollback is True
    assert child.name.startswith("outer-inner-")
    outputs = client.outputs(stack_id)
    assert outputs["child_out"]["value"] == "hello"
    assert outputs["child_name"]["value"] == child.name
    assert outputs["child_id"]["value"] == child.id
    [user] = [o for o in sandbox_objects(stack_id)]
    assert user.properties["value"] == "hello"
    assert [o.properties["value"] for o in sandbox_objects(child.id)] == ["hello"]


def test_a_nested_stack_cannot_be_changed_directly(client: Client) -> None:
    stack_id = client.create("guarded", _parent(_child_v1("x")))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    for attempt in (
        lambda: client.delete(child.id),
        lambda: client.update(child.id, _child_v1("y")),
        lambda: client.cancel(child.id),
    ):
        with pytest.raises(ConvTasksError) as caught:
            attempt()
        assert "nested in stack 'guarded'" in str(caught.value)
        assert "resource inner" in str(caught.value)
    assert client.get(child.id)["status"] == "CREATE_COMPLETE"


def test_update_of_the_nested_template(client: Client) -> None:
    stack_id = client.create("upd", _parent(_child_v1("one")))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    [a_before] = sandbox_objects(child.id)
    v2 = _child_template(
        {"a": test_resource("two"), "b": test_resource("added")},
        outputs={"a_out": {"value": {"get_attr": ["a", "output"]}}},
    )
    client.update(stack_id, _parent(v2))
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    [same] = children_of(stack_id)
    assert same.id == child.id and same.action == "UPDATE" and same.status == "COMPLETE"
    objects = {o.properties["value"]: o for o in sandbox_objects(child.id)}
    assert sorted(objects) == ["added", "two"]
    assert objects["two"].id == a_before.id  # updated in place, not replaced
    assert client.outputs(stack_id)["child_out"]["value"] == "two"
    assert [o.properties["value"] for o in sandbox_objects(stack_id)] == ["two"]


def test_a_failed_nested_resource_fails_and_rolls_back_the_parent(client: Client) -> None:
    stack_id = client.create("rb", _parent(_child_v1("good")))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    bad = _child_template(
        {"a": test_resource("changed"), "broken": test_resource("b", fail=True)},
        outputs={"a_out": {"value": {"get_attr": ["a", "output"]}}},
    )
    client.update(stack_id, _parent(bad))
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    reasons = [e["reason"] for e in client.events(stack_id) if e["resource_name"] == "inner"]
    assert any(f"nested stack {child.name} failed:" in r for r in reasons), reasons
    [same] = children_of(stack_id)
    assert same.id == child.id and same.status == "COMPLETE"
    # the child is back on its old template: one resource, its old value
    assert [o.properties["value"] for o in sandbox_objects(child.id)] == ["good"]
    assert client.outputs(stack_id)["child_out"]["value"] == "good"


def test_a_failed_nested_create_rolls_back_by_deleting_the_child(client: Client) -> None:
    bad = _child_template({"broken": test_resource("b", fail=True), "ok": test_resource("k")})
    stack_id = client.create("rbc", template({"inner": _nested(bad)}))["stack_id"]
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    [child] = children_of(stack_id, include_deleted=True)
    assert child.deleted_at is not None and child.action == "DELETE"
    assert sandbox_objects(child.id) == []


def test_delete_deletes_the_children_first(client: Client) -> None:
    deep = _child_template({"leaf": test_resource("leaf")})
    middle = _child_template({"m": test_resource("m"), "deeper": _nested(deep)})
    stack_id = client.create("del", template({"inner": _nested(middle)}))["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    [grandchild] = children_of(child.id)
    assert grandchild.nested_depth == 2
    assert len(sandbox_objects(child.id)) == 1 and len(sandbox_objects(grandchild.id)) == 1
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    for gone in (child, grandchild):
        assert client.get(gone.id, include_deleted=True)["status"] == "DELETE_COMPLETE"
        assert sandbox_objects(gone.id) == []


def test_cancel_of_the_parent_update_cancels_the_child_update(client: Client) -> None:
    stack_id = client.create("cancel", _parent(_child_v1("one")))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    slow = _child_template(
        {"a": test_resource("one"), "slow": test_resource("s", wait_secs=1000)},
        outputs={"a_out": {"value": {"get_attr": ["a", "output"]}}},
    )
    client.update(stack_id, _parent(slow))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(e["resource_name"] == "slow" for e in client.events(child.id)):
            break
        time.sleep(0.2)
    client.cancel(stack_id)  # and roll back
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    child_events = client.events(child.id)
    assert any(e["status"] == "UPDATE_FAILED" and "cancelled" in e["reason"] for e in child_events)
    [same] = children_of(stack_id)
    assert same.status == "COMPLETE"
    assert [o.properties["value"] for o in sandbox_objects(child.id)] == ["one"]


def test_a_region_in_context_is_refused(client: Client) -> None:
    bad = template({"inner": _nested(_child_v1("x"), context={"region_name": "RegionTwo"})})
    with pytest.raises(ConvTasksError) as caught:
        client.create("region", bad)
    assert "resources.inner.properties.context.region_name" in str(caught.value)
    assert "region" in str(caught.value)


def test_a_bad_child_template_is_refused_at_the_request(client: Client) -> None:
    bad = {"heat_template_version": "2018-08-31", "resources": {"x": {"type": "No::Such"}}}
    with pytest.raises(InvalidInput) as refused:
        client.create("badchild", template({"inner": _nested(bad)}))
    assert [p.path for p in refused.value.problems] == ["resources.inner.properties.template"]
    assert "resources.x.type: unknown resource type 'No::Such'" in str(refused.value)
    assert client.list() == []


def test_a_bad_child_template_known_only_at_apply_fails_the_parent_resource(
    client: Client,
) -> None:
    bad = {"heat_template_version": "2018-08-31", "resources": {"x": {"type": "No::Such"}}}
    parent = template(
        {"inner": {"type": "OS::Heat::Stack", "properties": {"template": {"get_param": "t"}}}}
    )
    parent["parameters"] = {"t": {"type": "string"}}
    stack_id = client.create("badchild", parent, {"t": json.dumps(bad)}, disable_rollback=True)[
        "stack_id"
    ]
    final = client.wait(stack_id, timeout=30)
    assert final["status"] == "CREATE_FAILED"
    assert "nested stack refused" in final["status_reason"]
    assert "No::Such" in final["status_reason"]
    assert children_of(stack_id) == []


def test_views_show_the_nesting(client: Client) -> None:
    deep = _child_template({"leaf": test_resource("leaf")})
    middle = _child_template({"m": test_resource("m"), "deeper": _nested(deep)})
    stack_id = client.create("views", template({"inner": _nested(middle)}))["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    [grandchild] = children_of(child.id)

    assert [s["id"] for s in client.list()] == [stack_id]
    nested = {s["id"]: s for s in client.list(show_nested=True)}
    assert set(nested) == {stack_id, child.id, grandchild.id}
    assert nested[grandchild.id]["parent_stack_id"] == child.id

    shown = client.get(child.id)
    assert shown["parent_stack_id"] == stack_id and shown["parent_stack_name"] == "views"
    assert shown["parent_resource"] == "inner" and shown["nested_depth"] == 1
    assert client.get(stack_id)["parent_stack_id"] is None

    own = client.events(stack_id)
    assert {e["resource_name"] for e in own} == {None, "inner"}
    assert all("stack_name" not in e for e in own)
    one_down = client.events(stack_id, nested_depth=1)
    assert {(e["stack_name"], e["resource_name"]) for e in one_down} == {
        ("views", None),
        ("views", "inner"),
        (child.name, None),
        (child.name, "m"),
        (child.name, "deeper"),
    }
    assert [e["id"] for e in one_down] == sorted(e["id"] for e in one_down)
    two_down = client.events(stack_id, nested_depth=2)
    assert (grandchild.name, "leaf") in {(e["stack_name"], e["resource_name"]) for e in two_down}
    after = one_down[2]["id"]
    assert [e["id"] for e in client.events(stack_id, nested_depth=1, after_id=after)] == [
        e["id"] for e in one_down if e["id"] > after
    ]

    assert [r["name"] for r in client.resources(stack_id)] == ["inner"]
    rows = client.resources(stack_id, nested_depth=2)
    assert [(r["stack_name"], r["name"]) for r in rows] == [
        ("views", "inner"),
        (child.name, "m"),  # each stack's resources in its template's order
        (child.name, "deeper"),
        (grandchild.name, "leaf"),
    ]


def test_delete_interrupts_a_nested_create_that_never_finishes(client: Client) -> None:
    stuck = _child_template({"ok": test_resource("k"), "stuck": test_resource("s", wait_secs=1000)})
    stack_id = client.create("stuckdel", template({"inner": _nested(stuck)}))["stack_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not children_of(stack_id):
        time.sleep(0.2)
    [child] = children_of(stack_id)
    while time.monotonic() < deadline:
        if any(e["resource_name"] == "stuck" for e in client.events(child.id)):
            break
        time.sleep(0.2)
    client.delete(stack_id)
    assert client.wait(stack_id, timeout=60)["status"] == "DELETE_COMPLETE"
    assert client.get(child.id, include_deleted=True)["status"] == "DELETE_COMPLETE"
    assert sandbox_objects(child.id) == []
    reasons = [e["reason"] for e in client.events(child.id)]
    assert any("cancelled" in r for r in reasons), reasons


def test_a_retained_child_outlives_its_parent_and_is_then_the_users(client: Client) -> None:
    kept = {**_nested(_child_v1("kept")), "deletion_policy": "Retain"}
    stack_id = client.create("retain", template({"inner": kept}))["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    with pytest.raises(ConvTasksError, match="nested in stack 'retain'"):
        client.delete(child.id)
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    assert client.get(child.id)["status"] == "CREATE_COMPLETE"
    assert len(sandbox_objects(child.id)) == 1
    client.delete(child.id)  # its parent is gone: the user may now
    assert client.wait(child.id)["status"] == "DELETE_COMPLETE"
    assert sandbox_objects(child.id) == []


BOX_V1 = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
  label: {type: string, default: from-provider}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [{get_param: value}, {get_param: label}]]}
outputs:
  out: {value: {get_attr: [a, output]}}
"""
BOX_V2 = BOX_V1.replace(
    "outputs:", "  b:\n    type: OS::Heat::TestResource\n    properties: {value: second}\noutputs:"
)
BOX_ENV = {
    "resource_registry": {"My::Box": "box.yaml", "My::Other": "OS::Heat::None"},
    "parameter_defaults": {"label": "from-env"},
}


def _box_parent(value: str) -> dict[str, Any]:
    return template(
        {
            "box": {"type": "My::Box", "properties": {"value": value}},
            "user": test_resource({"get_attr": ["box", "out"]}),
        },
        outputs={"out": {"value": {"get_attr": ["box", "out"]}}},
    )


def test_a_provider_template_from_the_environment_is_a_nested_stack(client: Client) -> None:
    stack_id = client.create(
        "boxed", _box_parent("v1"), environment=[BOX_ENV], files={"box.yaml": BOX_V1}
    )["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    assert child.parent_resource == "box" and child.status == "COMPLETE"
    # parameter_defaults reach the child; the parent's own mapping to box.yaml does not
    assert client.outputs(stack_id)["out"]["value"] == "v1-from-env"
    child_env = client.environment(child.id)
    assert child_env["parameter_defaults"] == {"label": "from-env"}
    assert child_env["resource_registry"] == {"My::Other": "OS::Heat::None"}
    types = {r["name"]: r["type"] for r in client.resources(stack_id)}
    assert types == {"box": "box.yaml", "user": "OS::Heat::TestResource"}
    [a_before] = sandbox_objects(child.id)

    # A new text of the file updates the same child in place.
    client.update(stack_id, _box_parent("v2"), environment=[BOX_ENV], files={"box.yaml": BOX_V2})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    [same] = children_of(stack_id)
    assert same.id == child.id
    objects = {o.properties["value"]: o for o in sandbox_objects(child.id)}
    assert sorted(objects) == ["second", "v2-from-env"]
    assert objects["v2-from-env"].id == a_before.id
    assert client.outputs(stack_id)["out"]["value"] == "v2-from-env"

    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    assert children_of(stack_id) == []
    assert sandbox_objects(child.id) == []
