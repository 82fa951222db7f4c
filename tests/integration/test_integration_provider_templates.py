"""Provider templates with real workers (issue 25, item 3): a parameter only the
environment's parameter_defaults set, Heat's get_attr [res, resource.NAME(.ATTR)], and an
update that changes only the provider template's file."""

from __future__ import annotations

from typing import Any

from integration_support import sandbox_objects, template
from test_integration_nested import children_of

from conv_tasks.client import Client

BOX = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
  label: {type: string}
resources:
  a:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ['-', [{get_param: value}, {get_param: label}]]}
outputs:
  out: {value: {get_attr: [a, output]}}
"""

ENV = {"resource_registry": {"My::Box": "box.yaml"}, "parameter_defaults": {"label": "env"}}


def _parent(value: str, outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    return template(
        {"box": {"type": "My::Box", "properties": {"value": value}}},
        outputs=outputs or {"out": {"value": {"get_attr": ["box", "out"]}}},
    )


def test_a_parameter_only_parameter_defaults_set_is_not_required(client: Client) -> None:
    files = {"box.yaml": BOX}
    assert client.validate(_parent("v1"), environment=[ENV], files=files)["valid"]
    stack_id = client.create("defaulted", _parent("v1"), environment=[ENV], files=files)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    assert client.outputs(stack_id)["out"]["value"] == "v1-env"
    [child] = children_of(stack_id)
    assert [o.properties["value"] for o in sandbox_objects(child.id)] == ["v1-env"]


def test_an_update_of_the_provider_file_alone_updates_the_nested_stack(client: Client) -> None:
    parent = _parent("v1")
    stack_id = client.create("refiled", parent, environment=[ENV], files={"box.yaml": BOX})[
        "stack_id"
    ]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    [a_before] = sandbox_objects(child.id)

    # The parent's template, parameters and environment are as they were: only the file is new.
    box_v2 = BOX.replace("[{get_param: value}, {get_param: label}]", "[{get_param: value}, v2]")
    client.update(stack_id, parent, environment=[ENV], files={"box.yaml": box_v2})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    [same] = children_of(stack_id)
    assert same.id == child.id and same.action == "UPDATE" and same.status == "COMPLETE"
    [a_after] = sandbox_objects(child.id)
    assert a_after.id == a_before.id and a_after.properties["value"] == "v1-v2"
    assert client.outputs(stack_id)["out"]["value"] == "v1-v2"
    box = {r["name"]: r for r in client.resources(stack_id)}["box"]
    assert box["status"] == "UPDATE_COMPLETE"

    # The same request again changes nothing: the nested stack is not updated again.
    client.update(stack_id, parent, environment=[ENV], files={"box.yaml": box_v2})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    [again] = children_of(stack_id)
    assert again.current_traversal == same.current_traversal


MEMBER = """heat_template_version: 2018-08-31
parameters:
  label: {type: string}
resources:
  inner:
    type: OS::Heat::TestResource
    properties: {value: {list_join: ['-', [box, {get_param: label}]]}}
outputs:
  shown: {value: {get_attr: [inner, output]}}
"""


def test_a_group_of_provider_members_follows_a_new_text_of_their_file(client: Client) -> None:
    group = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": 2,
            "resource_def": {"type": "My::Member", "properties": {"label": "m%index%"}},
        },
    }
    body = template(
        {"group": group}, outputs={"shown": {"value": {"get_attr": ["group", "shown"]}}}
    )
    environment = [{"resource_registry": {"My::Member": "member.yaml"}}]
    stack_id = client.create(
        "members", body, environment=environment, files={"member.yaml": MEMBER}
    )["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    assert client.outputs(stack_id)["shown"]["value"] == ["box-m0", "box-m1"]

    renamed = MEMBER.replace("[box,", "[crate,")
    client.update(stack_id, body, environment=environment, files={"member.yaml": renamed})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert client.outputs(stack_id)["shown"]["value"] == ["crate-m0", "crate-m1"]
    [group_child] = children_of(stack_id)
    members = children_of(group_child.id)
    assert len(members) == 2
    assert sorted(o.properties["value"] for m in members for o in sandbox_objects(m.id)) == [
        "crate-m0",
        "crate-m1",
    ]


NESTED_READS = {
    "ref": {"value": {"get_attr": ["box", "resource.a"]}},
    "dotted": {"value": {"get_attr": ["box", "resource.a.output"]}},
    "in_path": {"value": {"get_attr": ["box", "resource.a", "output"]}},
    "old_way": {"value": {"get_attr": ["box", "out"]}},
}


def test_get_attr_resource_name_reads_the_nested_resource(client: Client) -> None:
    """Heat's NestedAttributesTest: resource.NAME is the reference of the child's resource,
    resource.NAME.ATTR (or ATTR after it in the path) its attribute; validate accepts what
    create then gives."""
    body = _parent("v1", outputs=NESTED_READS)
    files = {"box.yaml": BOX}
    assert client.validate(body, environment=[ENV], files=files)["valid"]
    stack_id = client.create("nested-reads", body, environment=[ENV], files=files)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [child] = children_of(stack_id)
    [a] = [r for r in client.resources(child.id) if r["name"] == "a"]
    outputs = {name: out["value"] for name, out in client.outputs(stack_id).items()}
    assert outputs == {
        "ref": a["physical_id"],
        "dotted": "v1-env",
        "in_path": "v1-env",
        "old_way": "v1-env",
    }
    assert a["physical_id"]

    # A resource that reads a nested attribute no one read before, in an update: the
    # child's template gains its output, and the resource its value.
    more = _parent("v2", outputs=NESTED_READS)
    more["resources"]["user"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_attr": ["box", "resource.a", "output"]}},
    }
    more["outputs"]["a_id"] = {"value": {"get_attr": ["box", "resource.a.physical_id"]}}
    client.update(stack_id, more, environment=[ENV], files=files)
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    outputs = {name: out["value"] for name, out in client.outputs(stack_id).items()}
    assert outputs["in_path"] == outputs["dotted"] == "v2-env"
    assert outputs["a_id"] == outputs["ref"] == a["physical_id"]
    assert [o.properties["value"] for o in sandbox_objects(stack_id)] == ["v2-env"]


def test_validate_refuses_a_nested_resource_the_provider_lacks(client: Client) -> None:
    body = _parent("v1", outputs={"bad": {"value": {"get_attr": ["box", "resource.b.output"]}}})
    result = client.validate(body, environment=[ENV], files={"box.yaml": BOX})
    assert [(e["path"], e["message"]) for e in result["errors"]] == [
        (
            "outputs.bad.value.get_attr",
            "the provider template box.yaml has no resource 'b'; its resources: a",
        )
    ]


OUTER = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
resources:
  inner:
    type: My::Box
    properties: {value: {get_param: value}}
"""


def test_resource_name_reads_through_two_levels_of_provider_templates(client: Client) -> None:
    env = {
        "resource_registry": {"My::Box": "box.yaml", "My::Outer": "outer.yaml"},
        "parameter_defaults": {"label": "env"},
    }
    body = template(
        {"outer": {"type": "My::Outer", "properties": {"value": "deep"}}},
        outputs={
            "inner_ref": {"value": {"get_attr": ["outer", "resource.inner"]}},
            "a_output": {"value": {"get_attr": ["outer", "resource.inner.resource.a.output"]}},
        },
    )
    files = {"box.yaml": BOX, "outer.yaml": OUTER}
    assert client.validate(body, environment=[env], files=files)["valid"]
    stack_id = client.create("deep", body, environment=[env], files=files)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    [outer_child] = children_of(stack_id)
    [inner_child] = children_of(outer_child.id)
    outputs = {name: out["value"] for name, out in client.outputs(stack_id).items()}
    # The reference of a provider resource is its child stack's id.
    assert outputs == {"inner_ref": inner_child.id, "a_output": "deep-env"}
