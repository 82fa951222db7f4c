"""resource_facade in nested stacks with real workers: a provider template reads the
resolved metadata and the deletion_policy of the resource that owns it, and an update of
the parent that changes the metadata updates the child's resources (issue 10)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from integration_support import sandbox_objects, template, test_resource
from sealed_rows import opened
from sqlalchemy import select

from conv_tasks.client import Client
from conv_tasks.db.models import RawTemplate, Stack
from conv_tasks.db.session import session_scope
from conv_tasks.errors import ConvTasksError

FACADE_BOX = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: VALUE META POLICY
          params:
            VALUE: {get_param: value}
            META: {resource_facade: metadata}
            POLICY: {resource_facade: deletion_policy}
  meta:
    type: OS::Heat::Value
    properties:
      value: {resource_facade: metadata}
      type: json
outputs:
  meta: {value: {get_attr: [meta, value]}}
  policy: {value: {resource_facade: deletion_policy}}
  update_policy: {value: {resource_facade: update_policy}}
  a: {value: {get_attr: [a, output]}}
"""
ENV = {"resource_registry": {"My::FacadeBox": "facade_box.yaml"}}
FILES = {"facade_box.yaml": FACADE_BOX}


def _parent() -> dict[str, Any]:
    return template(
        {
            "box": {
                "type": "My::FacadeBox",
                "properties": {"value": "v"},
                # Resolved in the parent: the child sees the parameter's value.
                "metadata": {"role": {"get_param": "role"}, "size": 2},
                "deletion_policy": "retain",
            },
            "user": test_resource({"get_attr": ["box", "a"]}),
        },
        parameters={"role": {"type": "string"}},
        outputs={
            "meta": {"value": {"get_attr": ["box", "meta"]}},
            "policy": {"value": {"get_attr": ["box", "policy"]}},
            "update_policy": {"value": {"get_attr": ["box", "update_policy"]}},
        },
    )


def _child(stack_id: str) -> Stack:
    with session_scope() as session:
        [child] = session.scalars(
            select(Stack).where(Stack.parent_stack_id == stack_id, Stack.deleted_at.is_(None))
        )
        return child


def _stored_facade(stack_id: str) -> Any:
    with session_scope() as session:
        child = session.get(Stack, stack_id)
        assert child is not None and child.raw_template_id is not None
        raw = session.get(RawTemplate, child.raw_template_id)
        assert raw is not None
        return opened("raw_template", "facade", raw.facade)


def _meta(role: str) -> str:
    return json.dumps({"role": role, "size": 2})


def test_a_provider_template_reads_its_parent_resource_through_resource_facade(
    client: Client,
) -> None:
    stack_id = client.create("facade", _parent(), {"role": "web"}, environment=[ENV], files=FILES)[
        "stack_id"
    ]
    state = client.wait(stack_id)
    assert state["status"] == "CREATE_COMPLETE", [e["reason"] for e in client.events(stack_id)]
    child = _child(stack_id)
    outputs = {name: out["value"] for name, out in client.outputs(stack_id).items()}
    assert outputs == {
        "meta": {"role": "web", "size": 2},
        "policy": "Retain",
        "update_policy": {},
    }
    # Stored with the child's template: every worker rebuilding its definition reads it.
    assert _stored_facade(child.id) == {
        "metadata": {"role": "web", "size": 2},
        "deletion_policy": "Retain",
        "update_policy": {},
    }
    [a] = sandbox_objects(child.id)
    assert json.loads(a.properties["value"].split(" ", 1)[1].rsplit(" ", 1)[0]) == {
        "role": "web",
        "size": 2,
    }
    assert a.properties["value"].startswith("v ") and a.properties["value"].endswith(" Retain")
    [user] = sandbox_objects(stack_id)
    assert user.properties["value"] == a.properties["value"]

    # A change of the parent's metadata (through its parameter) updates the child in place.
    client.update(stack_id, None, {"role": "db"})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert _child(stack_id).id == child.id
    assert client.outputs(stack_id)["meta"]["value"] == {"role": "db", "size": 2}
    [a_after] = sandbox_objects(child.id)
    assert a_after.id == a.id
    assert a_after.properties["value"] == a.properties["value"].replace('"web"', '"db"')
    assert _stored_facade(child.id)["metadata"] == {"role": "db", "size": 2}
    [user_after] = sandbox_objects(stack_id)
    assert user_after.properties["value"] == a_after.properties["value"]

    # Retained by its parent's delete: the child is the user's, and an update of it keeps
    # the facade it was stored with.
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
    assert client.get(child.id)["status"] == "UPDATE_COMPLETE"
    client.update(child.id, None, {"value": "later"})
    assert client.wait(child.id)["status"] == "UPDATE_COMPLETE"
    [a_later] = sandbox_objects(child.id)
    assert a_later.properties["value"] == a_after.properties["value"].replace("v ", "later ", 1)
    client.delete(child.id)
    assert client.wait(child.id)["status"] == "DELETE_COMPLETE"
    assert sandbox_objects(child.id) == []


def test_a_failed_update_rolls_the_child_back_to_the_old_facade(client: Client) -> None:
    parent = _parent()
    parent["parameters"]["fail"] = {"type": "boolean", "default": False}
    parent["resources"]["breaker"] = {
        **test_resource("b", fail={"get_param": "fail"}),
        "depends_on": "box",
    }
    stack_id = client.create("facade-rb", parent, {"role": "web"}, environment=[ENV], files=FILES)[
        "stack_id"
    ]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    [a] = sandbox_objects(child.id)
    # The box (and its child) update to the new metadata, then the breaker fails.
    client.update(stack_id, None, {"role": "db", "fail": True})
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    events = client.events(child.id)
    updated = [e for e in events if e["resource_name"] == "a" and e["status"] == "UPDATE_COMPLETE"]
    assert len(updated) == 2, events  # to the new metadata, then back
    [a_back] = sandbox_objects(child.id)
    assert a_back.id == a.id and a_back.properties["value"] == a.properties["value"]
    assert _stored_facade(child.id)["metadata"] == {"role": "web", "size": 2}
    assert client.outputs(stack_id)["meta"]["value"] == {"role": "web", "size": 2}


def test_a_child_stack_of_os_heat_stack_reads_resource_facade(client: Client) -> None:
    child = template(
        {
            "meta": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"resource_facade": "metadata"}, "type": "json"},
            }
        },
        outputs={"meta": {"value": {"get_attr": ["meta", "value"]}}},
    )
    parent = template(
        {
            "inner": {
                "type": "OS::Heat::Stack",
                "properties": {"template": json.dumps(child)},
                "metadata": {"k": "v"},
            }
        },
        outputs={"meta": {"value": {"get_attr": ["inner", "outputs", "meta"]}}},
    )
    stack_id = client.create("facade-stack", parent)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    assert client.outputs(stack_id)["meta"]["value"] == {"k": "v"}
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"


def test_resource_facade_in_a_top_level_stack_is_refused_by_path(client: Client) -> None:
    doc = template(
        {"v": {"type": "OS::Heat::Value", "properties": {"value": {"resource_facade": "metadata"}}}}
    )
    with pytest.raises(ConvTasksError) as refused:
        client.create("no-parent", doc)
    assert "resources.v.properties.value.resource_facade: resource_facade works only" in str(
        refused.value
    )
    assert client.list() == []


def test_a_facade_derived_from_hidden_parameters_is_hidden_in_the_child(client: Client) -> None:
    parent = template(
        {
            "box": {
                "type": "My::FacadeBox",
                "properties": {"value": "v"},
                "metadata": {
                    "conn": {
                        "str_replace": {"template": "pw=P", "params": {"P": {"get_param": "pw"}}}
                    }
                },
            },
            # str_replace's arguments are a mapping: resource show must still mask this.
            "also": test_resource(
                {"str_replace": {"template": "pw=P", "params": {"P": {"get_param": "pw"}}}}
            ),
        },
        parameters={"pw": {"type": "string", "hidden": True}},
        outputs={"meta": {"value": {"get_attr": ["box", "meta"]}}},
    )
    stack_id = client.create(
        "hidden-facade", parent, {"pw": "s3cret-pw"}, environment=[ENV], files=FILES
    )["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    child = _child(stack_id)
    # The child works with the real value...
    [a] = sandbox_objects(child.id)
    assert "pw=s3cret-pw" in a.properties["value"]
    # ...and shows none of it: its outputs and resources that read the facade are masked.
    shown = json.dumps(
        [
            client.outputs(child.id),
            client.resource(child.id, "a"),
            client.resource(child.id, "meta"),
            client.outputs(stack_id),
            client.events(stack_id, nested_depth=1),
            client.resource(stack_id, "also"),
        ]
    )
    assert "s3cret" not in shown
    assert client.outputs(child.id)["meta"]["value"] == "******"
    assert client.resource(stack_id, "also")["properties"]["value"] == "******"
    client.delete(stack_id)
    assert client.wait(stack_id)["status"] == "DELETE_COMPLETE"
