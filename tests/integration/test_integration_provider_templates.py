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
