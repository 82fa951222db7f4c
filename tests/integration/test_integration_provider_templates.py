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
